/// The bodies the transfers' endpoints take, shared by the server and clients.

/// One transfer to add (`POST /api/v1/transfers` takes ``AddTransfersRequest``).
public struct AddTransferRequest: Codable, Sendable, Equatable {
    public var url: String
    /// `download-file` (default), `download-hls`, `upload-tus` or `upload-plain`. For uploads
    /// `url` is the local file's path and `properties.destinationURL` the target.
    public var kind: String?
    /// `maxBandwidth` (HLS), `destinationURL` and `method` (uploads).
    public var properties: [String: String]?
    public var headers: [String: String]?
    public var name: String?
    public var priority: Int?
    public var position: Int?
    public var sha256: String?
    public var paused: Bool?

    public init(
        url: String, kind: String? = nil, properties: [String: String]? = nil, headers: [String: String]? = nil,
        name: String? = nil,
        priority: Int? = nil, position: Int? = nil, sha256: String? = nil, paused: Bool? = nil
    ) {
        self.url = url
        self.kind = kind
        self.properties = properties
        self.headers = headers
        self.name = name
        self.priority = priority
        self.position = position
        self.sha256 = sha256
        self.paused = paused
    }
}

/// `POST /api/v1/transfers`.
public struct AddTransfersRequest: Codable, Sendable, Equatable {
    public var transfers: [AddTransferRequest]

    public init(transfers: [AddTransferRequest]) {
        self.transfers = transfers
    }
}

/// `PATCH /api/v1/transfers/{id}`.
public struct ChangeTransferRequest: Codable, Sendable, Equatable {
    /// `pause`, `resume`, `retry`, `cancel`, `position` (with `position`) or `url` (with `url`).
    public var action: String
    public var position: Int?
    public var url: String?

    public init(action: String, position: Int? = nil, url: String? = nil) {
        self.action = action
        self.position = position
        self.url = url
    }
}
