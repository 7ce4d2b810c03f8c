import Foundation

/// Who a request acts as (`GET`/`POST /api/v1/session`): the owner, or an API key.
public struct SessionAnswer: Codable, Sendable, Equatable {
    /// `read`, `play`, `manage` or `admin`.
    public var scope: String
    public var name: String
    /// The key signed in with; nil for the owner.
    public var keyID: Int64?

    public init(scope: String, name: String, keyID: Int64?) {
        self.scope = scope
        self.name = name
        self.keyID = keyID
    }
}

/// An API key as listed: never its secret, which is shown once when the key is made.
public struct APIKeyAnswer: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// `read`, `play`, `manage` or `admin`.
    public var scope: String
    /// The secret's first characters, to tell keys apart.
    public var hint: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: Int64, name: String, scope: String, hint: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.name = name
        self.scope = scope
        self.hint = hint
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// `GET /api/v1/keys`: every API key.
public struct APIKeyList: Codable, Sendable, Equatable {
    public var keys: [APIKeyAnswer]

    public init(keys: [APIKeyAnswer]) {
        self.keys = keys
    }
}

/// `POST /api/v1/keys`: the new key and its secret, shown this once.
public struct NewAPIKeyAnswer: Codable, Sendable, Equatable {
    public var key: APIKeyAnswer
    public var secret: String

    public init(key: APIKeyAnswer, secret: String) {
        self.key = key
        self.secret = secret
    }
}
