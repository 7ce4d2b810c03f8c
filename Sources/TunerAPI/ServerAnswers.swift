/// `GET /api/v1/health`: the server answers (`{"status":"ok"}`).
public struct HealthAnswer: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String) {
        self.status = status
    }
}

/// `POST /api/v1/proxy-urls`: a URL to play through the proxy, with the headers its origin needs.
public struct ProxyURLRequest: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [String: String]?

    public init(url: String, headers: [String: String]? = nil) {
        self.url = url
        self.headers = headers
    }
}

/// The signed proxy URL `POST /api/v1/proxy-urls` made.
public struct ProxyURLAnswer: Codable, Sendable, Equatable {
    public var proxyURL: String

    public init(proxyURL: String) {
        self.proxyURL = proxyURL
    }
}
