import Foundation

/// Stable identities and normalized names.
///
/// Row ids change when a source is removed and added again, so everything the user sets on an item
/// (favourite, custom order, guide mapping) is keyed by an identity computed from what the provider
/// sends: the `tvg-id` when there is one, else a digest of the normalized name and the URL.
public enum CatalogIdentity {
    /// The identity of an item.
    public static func identity(kind: CatalogItemKind, tvgID: String?, providerID: String?, name: String, url: String?)
        -> String
    {
        identity(kind: kind, tvgID: tvgID, providerID: providerID, normalizedName: normalizedName(name), url: url)
    }

    /// The identity of an item whose name was normalized already (imports normalize each name once).
    static func identity(
        kind: CatalogItemKind, tvgID: String?, providerID: String?, normalizedName: String, url: String?
    ) -> String {
        if kind == .live, let tvgID, !tvgID.isEmpty {
            return "tvg:" + tvgID.lowercased()
        }
        if let providerID, !providerID.isEmpty {
            return "id:" + providerID
        }
        // A series has no URL of its own: its name is all there is.
        guard let url, !url.isEmpty else { return "name:" + normalizedName }
        // Name and URL together are long (and the unique index stores them again), so they are
        // kept as a 64-bit digest: a 200,000-entry playlist has no collision to fear.
        return "url:" + hexDigest(normalizedName, url)
    }

    /// FNV-1a (64-bit) of `name`, a separator and `url`, in hex: stable across runs and
    /// platforms, unlike `Hasher`.
    static func hexDigest(_ name: String, _ url: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        hash = (hash ^ 0x0A) &* 0x0000_0100_0000_01B3
        for byte in url.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Lowercased, without diacritics, with every run of punctuation and spaces turned into one
    /// space: "  BBC One HD! " and "bbc-one hd" compare equal, as do "Télé" and "tele".
    public static func normalizedName(_ name: String) -> String {
        var folds = ScalarFolds()
        return normalizedName(name, folds: &folds)
    }

    /// ``normalizedName(_:)``, remembering in `folds` how each non-ASCII character folds: an
    /// import meets the same few accented letters over and over, and folding them is the slow part.
    static func normalizedName(_ name: String, folds: inout ScalarFolds) -> String {
        if let ascii = asciiNormalizedName(name) { return ascii }
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        func append(_ scalar: Unicode.Scalar) {
            if pendingSpace, !result.isEmpty { result.append(" ") }
            pendingSpace = false
            result.append(scalar)
        }
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                switch value {
                case 0x30...0x39, 0x61...0x7A: append(scalar)
                case 0x41...0x5A: append(Unicode.Scalar(value + 0x20)!)
                default: pendingSpace = true
                }
                continue
            }
            switch folds.fold(scalar) {
            case .dropped: continue
            case .separator: pendingSpace = true
            case .one(let folded): append(folded)
            case .many(let folded): folded.forEach(append)
            }
        }
        return String(result)
    }

    /// How non-ASCII characters fold in a normalized name, computed once per character.
    struct ScalarFolds {
        enum Fold {
            /// A combining mark: gone.
            case dropped
            /// Neither a letter nor a digit: a word break.
            case separator
            case one(Unicode.Scalar)
            case many([Unicode.Scalar])
        }

        private var known: [Unicode.Scalar: Fold] = [:]

        mutating func fold(_ scalar: Unicode.Scalar) -> Fold {
            if let fold = known[scalar] { return fold }
            let fold = Self.fold(scalar)
            known[scalar] = fold
            return fold
        }

        private static func fold(_ scalar: Unicode.Scalar) -> Fold {
            let properties = scalar.properties
            if properties.generalCategory == .nonspacingMark { return .dropped }
            guard properties.isAlphabetic || properties.numericType != nil else { return .separator }
            // Rare enough that Foundation's folding is affordable here and only here.
            let folded = String(scalar).folding(
                options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
            let scalars = Array(folded.unicodeScalars).filter { $0.properties.generalCategory != .nonspacingMark }
            return scalars.count == 1 ? .one(scalars[0]) : .many(scalars)
        }
    }

    /// ``normalizedName(_:)`` of an all-ASCII name, byte by byte (most names of most playlists);
    /// `nil` when the name has other characters.
    static func asciiNormalizedName(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { bytes -> String? in
            var output = [UInt8]()
            output.reserveCapacity(bytes.count)
            var pendingSpace = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                var lowered = byte
                switch byte {
                case 0x30...0x39, 0x61...0x7A: break
                case 0x41...0x5A: lowered = byte + 0x20
                default:
                    pendingSpace = true
                    continue
                }
                if pendingSpace, !output.isEmpty { output.append(0x20) }
                pendingSpace = false
                output.append(lowered)
            }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
