/// The bodies of sign-in and API keys, shared by the server and clients.

/// `POST /api/v1/session`: the access token or an API key, exchanged for a session cookie.
public struct SignInRequest: Codable, Sendable, Equatable {
    public var key: String

    public init(key: String) {
        self.key = key
    }
}

/// `POST /api/v1/keys`: a new key's name and scope (`read`, `play`, `manage` or `admin`).
public struct AddKeyRequest: Codable, Sendable, Equatable {
    public var name: String
    public var scope: String

    public init(name: String, scope: String) {
        self.name = name
        self.scope = scope
    }
}
