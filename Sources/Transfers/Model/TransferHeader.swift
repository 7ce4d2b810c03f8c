import Foundation

/// An HTTP header sent with every request of a task (cookies, referer, user agent, auth).
public struct TransferHeader: Codable, Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `"Name: value"`, as curl's `-H` takes it.
    public init?(line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        self.name = name
        self.value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
