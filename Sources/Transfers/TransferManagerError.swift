/// Why the manager refused an operation.
public enum TransferManagerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No task has this id.
    case notFound(Int64)
    /// The operation does not apply to a task in this state.
    case invalidState(id: Int64, state: TransferState, action: String, hint: String)
    /// The request itself is wrong (a bad URL, checksum or name).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .notFound(let id):
            return "no transfer has id \(id); list them with `tuner transfers list`"
        case .invalidState(let id, let state, let action, let hint):
            return "cannot \(action) transfer \(id) while it is \(state.rawValue)\(hint.isEmpty ? "" : "; \(hint)")"
        case .invalidRequest(let reason):
            return reason
        }
    }
}
