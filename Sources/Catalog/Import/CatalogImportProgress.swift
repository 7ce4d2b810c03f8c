/// How far a refresh has got; reported to the caller's callback as the import runs.
public struct CatalogImportProgress: Sendable, Hashable, Codable {
    /// What the refresh is doing.
    public struct Phase: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let downloading = Phase(rawValue: "downloading")
        public static let importing = Phase(rawValue: "importing")
        public static let finished = Phase(rawValue: "finished")
        public var description: String { rawValue }
    }

    public var sourceID: Int64
    public var phase: Phase
    /// Bytes downloaded or read so far.
    public var bytes: Int64
    /// The size announced by the server or the file system, when known.
    public var totalBytes: Int64?
    /// Items, episodes or programmes stored so far.
    public var entries: Int

    public init(sourceID: Int64, phase: Phase, bytes: Int64 = 0, totalBytes: Int64? = nil, entries: Int = 0) {
        self.sourceID = sourceID
        self.phase = phase
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.entries = entries
    }
}
