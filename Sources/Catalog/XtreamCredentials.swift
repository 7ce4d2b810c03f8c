/// Xtream Codes account details.
public struct XtreamCredentials: Sendable, Hashable, Codable {
    /// The server base URL, such as `http://example.com:8080`.
    public var server: String
    public var username: String
    public var password: String

    public init(server: String, username: String, password: String) {
        self.server = server
        self.username = username
        self.password = password
    }
}
