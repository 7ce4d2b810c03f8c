import Crypto
import Foundation
import _CryptoExtras

/// Passwords of output users: PBKDF2-SHA256 with a random salt and OWASP's round count, compared
/// in constant time. A password is never stored or logged.
public struct PasswordHash: Sendable, Hashable {
    public var hash: Data
    public var salt: Data
    public var rounds: Int

    /// OWASP's minimum for PBKDF2-SHA256 (and swift-crypto's).
    public static let defaultRounds = 600_000

    public init(hash: Data, salt: Data, rounds: Int) {
        self.hash = hash
        self.salt = salt
        self.rounds = rounds
    }

    /// A new hash of `password` with a fresh salt.
    public static func make(_ password: String, rounds: Int = defaultRounds) throws -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return PasswordHash(hash: try derive(password, salt: salt, rounds: rounds), salt: salt, rounds: rounds)
    }

    /// Whether `password` is the one this hash was made from.
    public func matches(_ password: String) -> Bool {
        guard let derived = try? Self.derive(password, salt: salt, rounds: rounds) else { return false }
        return Self.constantTimeEquals(Array(derived), Array(hash))
    }

    static func derive(_ password: String, salt: Data, rounds: Int) throws -> Data {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, rounds: rounds)
        return key.withUnsafeBytes { Data($0) }
    }

    /// Whether two byte strings are equal, in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
