import Foundation

/// An API key as listed: never its secret, which is shown once when the key is made.
public struct APIKey: Codable, Sendable, Hashable {
    public var id: Int64
    /// What the user called it (`living-room-tv`).
    public var name: String
    public var scope: AccessScope
    /// The secret's first characters (`tuner_AbC1…`), to tell keys apart.
    public var hint: String
    public var createdAt: Date
    /// Within a minute.
    public var lastUsedAt: Date?

    public init(id: Int64, name: String, scope: AccessScope, hint: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.name = name
        self.scope = scope
        self.hint = hint
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A new key and its secret: the only time the secret is seen.
public struct NewAPIKey: Codable, Sendable, Hashable {
    public var key: APIKey
    public var secret: String
}
