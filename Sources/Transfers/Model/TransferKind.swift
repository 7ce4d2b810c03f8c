/// What a transfer does. A struct around a string rather than an enum, so a new kind (and its
/// executor) can be added without breaking code that switches over the known ones.
public struct TransferKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// One file over HTTP(S), into `<data>/downloads/`.
    public static let downloadFile = TransferKind(rawValue: "download-file")
    /// An HLS VOD stream (one rendition, its keys and init maps) into a folder with a local playlist.
    public static let downloadHLS = TransferKind(rawValue: "download-hls")
    /// A local file sent with the tus 1.0 resumable upload protocol.
    public static let uploadTus = TransferKind(rawValue: "upload-tus")
    /// A local file sent as one plain HTTP PUT or POST.
    public static let uploadPlain = TransferKind(rawValue: "upload-plain")

    /// Every kind the module knows of, executor or not.
    public static let known: [TransferKind] = [.downloadFile, .downloadHLS, .uploadTus, .uploadPlain]

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
