import Foundation

/// Whether an access token is strong enough to guard a Tuner reachable from the network: at least
/// 128 bits, estimated conservatively from its length and the smallest alphabet that holds it.
///
/// The estimate is length × log2(alphabet), where the alphabet is hex (16) when the token is all
/// hex digits, else the sum of the classes it uses (26 lower, 26 upper, 10 digits, 2 for `-`/`_`,
/// 33 for other printable ASCII). So 32 hex digits (128 bits) or 22 base64url characters (132)
/// pass, and `1234`, a short word or 31 hex digits do not. A token of fewer than 8 distinct
/// characters (`aaaa…`) counts only those.
public enum TokenStrength {
    public static let minimumBits = 128.0

    /// The estimated bits of `token`.
    public static func bits(of token: String) -> Double {
        let scalars = Array(token.unicodeScalars)
        guard !scalars.isEmpty else { return 0 }
        func all(_ test: (Unicode.Scalar) -> Bool) -> Bool { scalars.allSatisfy(test) }
        func any(_ test: (Unicode.Scalar) -> Bool) -> Bool { scalars.contains(where: test) }
        let isDigit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        let isLower: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) }
        let isUpper: (Unicode.Scalar) -> Bool = { ("A"..."Z").contains($0) }
        let isHex: (Unicode.Scalar) -> Bool = { isDigit($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) }
        var alphabet = 0.0
        if all(isHex) {
            alphabet = all(isDigit) ? 10 : 16
        } else {
            if any(isLower) { alphabet += 26 }
            if any(isUpper) { alphabet += 26 }
            if any(isDigit) { alphabet += 10 }
            if any({ $0 == "-" || $0 == "_" }) { alphabet += 2 }
            if any({ !isLower($0) && !isUpper($0) && !isDigit($0) && $0 != "-" && $0 != "_" }) { alphabet += 33 }
        }
        // Fewer than 8 distinct characters say the token was typed, not drawn (`aaaa…`, `abab…`;
        // 22 random draws from 64 give fewer than 8 about never): then only those count.
        let distinct = Double(Set(scalars).count)
        return Double(scalars.count) * log2(distinct < 8 ? distinct : alphabet)
    }

    /// Whether `token` reaches ``minimumBits``.
    public static func isStrong(_ token: String) -> Bool {
        bits(of: token) >= minimumBits
    }

    /// Throws when `token` is weak, saying how to make a strong one.
    public static func check(_ token: String) throws(FeatureError) {
        guard isStrong(token) else {
            throw FeatureError.invalid(
                """
                the access token (TUNER_TOKEN, --token or the configuration file) is too weak: about \
                \(Int(bits(of: token))) bits, at least 128 are needed. Make one with `openssl rand -hex 32`, \
                or leave it unset and Tuner makes one in the data folder's token file
                """)
        }
    }
}
