import Foundation

/// One line of a task's history: what happened and when (restarts from byte 0, retries, errors).
public struct TransferHistoryEntry: Codable, Hashable, Sendable {
    public var at: Date
    public var message: String

    public init(at: Date = Date(), message: String) {
        self.at = at
        self.message = message
    }
}
