import Foundation

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

    /// The pages of a panel that people copy whole from their provider's e-mail or app.
    static let panelPages = ["player_api.php", "get.php", "xmltv.php", "panel_api.php"]

    /// Credentials from what a user pastes: a server URL with `username` and `password` given
    /// apart, or a whole panel URL such as `http://host:8080/player_api.php?username=U&password=P`
    /// (also `get.php`, `xmltv.php`), whose page and query are dropped from the server. Given
    /// values win over the query's. `nil` when the username or the password is missing.
    public static func parse(_ location: String, username: String? = nil, password: String? = nil) -> XtreamCredentials?
    {
        var server = location.trimmingCharacters(in: .whitespacesAndNewlines)
        var queryUsername: String?
        var queryPassword: String?
        if var components = URLComponents(string: server), components.scheme != nil {
            for item in components.queryItems ?? [] {
                switch item.name.lowercased() {
                case "username": queryUsername = item.value
                case "password": queryPassword = item.value
                default: break
                }
            }
            components.query = nil
            components.fragment = nil
            var path = components.path
            if let page = path.split(separator: "/").last, panelPages.contains(page.lowercased()) {
                path.removeLast(page.count)
            }
            while path.hasSuffix("/") { path.removeLast() }
            components.path = path
            server = components.string ?? server
        }
        while server.hasSuffix("/") { server.removeLast() }
        guard let user = username ?? queryUsername, !user.isEmpty, let pass = password ?? queryPassword, !pass.isEmpty,
            !server.isEmpty
        else {
            return nil
        }
        return XtreamCredentials(server: server, username: user, password: pass)
    }
}
