/// What a caller asks for when adding a task.
public struct TransferRequest: Sendable, Hashable {
    public var kind: TransferKind
    public var sourceURL: String
    public var headers: [TransferHeader]
    /// The wanted name under `<data>/downloads/`; derived from the URL when nil. A taken name
    /// gets a suffix.
    public var destinationName: String?
    public var priority: Int
    /// Index in the queue (0 = first) among tasks of any priority; nil appends.
    public var position: Int?
    public var expectedSHA256: String?
    /// Start paused instead of waiting.
    public var paused: Bool
    public var properties: [String: String]

    public init(
        kind: TransferKind = .downloadFile, sourceURL: String, headers: [TransferHeader] = [],
        destinationName: String? = nil,
        priority: Int = 0, position: Int? = nil, expectedSHA256: String? = nil, paused: Bool = false,
        properties: [String: String] = [:]
    ) {
        self.kind = kind
        self.sourceURL = sourceURL
        self.headers = headers
        self.destinationName = destinationName
        self.priority = priority
        self.position = position
        self.expectedSHA256 = expectedSHA256
        self.paused = paused
        self.properties = properties
    }
}
