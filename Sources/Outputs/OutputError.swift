/// Why an output operation failed, with a kind each front end maps to its answer.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No such profile or channel.
        case notFound
        /// The request is wrong (a bad profile id, a number out of range).
        case invalid
        /// The profile exists already.
        case conflict
    }

    public let kind: Kind
    /// What failed and what to do, for people.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
