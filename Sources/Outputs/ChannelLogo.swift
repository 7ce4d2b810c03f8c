/// A logo uploaded to Tuner for a channel: a raster image kept under its content's SHA-256 and
/// served at `/logos/<name>` to players and the web app.
///
/// Only PNG, JPEG, GIF and WebP are taken, told by their first bytes, never by a name or a
/// `Content-Type` someone chose: an SVG or HTML file could run script on Tuner's origin.
public struct ChannelLogo: Sendable, Hashable {
    /// The image formats taken, with the extension and `Content-Type` each is served with.
    public enum Format: String, Sendable, CaseIterable {
        case png, jpg, gif, webp

        public var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .gif: "image/gif"
            case .webp: "image/webp"
            }
        }
    }

    /// 64 lowercase hex digits: the SHA-256 of the file.
    public var digest: String
    public var format: Format

    /// The largest logo taken (players show them a few hundred pixels wide).
    public static let largest = 1_048_576

    /// The value an ``OutputChannelEdit/logo`` holds for an uploaded logo.
    public static let scheme = "upload:"

    public init?(digest: String, format: Format) {
        guard digest.utf8.count == 64, digest.utf8.allSatisfy(Self.isLowerHex) else { return nil }
        self.digest = digest
        self.format = format
    }

    /// The file's name: `<digest>.<extension>`.
    public var name: String { digest + "." + format.rawValue }

    /// What an edit stores: `upload:<name>`.
    public var reference: String { Self.scheme + name }

    /// The logo a file name names, or nil for anything else (a path, another extension).
    public init?(name: String) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let format = Format(rawValue: String(parts[1])) else { return nil }
        self.init(digest: String(parts[0]), format: format)
    }

    /// The logo an edit's `upload:<name>` names, or nil.
    public init?(reference: String) {
        guard reference.hasPrefix(Self.scheme) else { return nil }
        self.init(name: String(reference.dropFirst(Self.scheme.count)))
    }

    /// The format of an image by its first bytes, or nil when it is none of ``Format``.
    public static func format(of bytes: some Collection<UInt8>) -> Format? {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpg }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    static func isLowerHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
