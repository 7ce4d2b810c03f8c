/// What a tus server said about itself in its OPTIONS answer.
public struct TusServerOptions: Sendable, Hashable {
    /// `Tus-Version`, most preferred first.
    public var versions: [String]
    /// `Tus-Extension`: `creation`, `termination`, `checksum`, ...
    public var extensions: Set<String>
    /// `Tus-Checksum-Algorithm`, lowercased.
    public var checksumAlgorithms: [String]
    /// `Tus-Max-Size`, when the server has a limit.
    public var maxSize: Int64?

    public init(
        versions: [String] = [], extensions: Set<String> = [], checksumAlgorithms: [String] = [], maxSize: Int64? = nil
    ) {
        self.versions = versions
        self.extensions = extensions
        self.checksumAlgorithms = checksumAlgorithms
        self.maxSize = maxSize
    }

    /// The strongest algorithm both sides compute, when the server offers the checksum extension.
    public var preferredChecksum: TusChecksumAlgorithm? {
        guard extensions.contains("checksum") else { return nil }
        return TusChecksumAlgorithm.all.first { checksumAlgorithms.contains($0.name) }
    }
}
