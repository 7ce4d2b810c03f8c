import Synchronization

/// What one response holds of its entry (a use, which keeps it from eviction, and the fetches it
/// keeps alive), given back exactly once: when the body ends, or, if the server drops the response
/// without ever running its body (the client left first), when the body is released.
///
/// Without this an unrun body kept its entry "in use" for ever (never evicted) and its fetch
/// running with nobody to watch it.
final class EntryLease: Sendable {
    private let entry: ResourceEntry
    /// Nil once given back; else the fetches attached when the response was made.
    private let held: Mutex<Set<Int>?>

    init(entry: ResourceEntry, attached: Set<Int>) {
        self.entry = entry
        entry.beginUse()
        held = Mutex(attached)
    }

    /// The fetches attached when the response was made (the body starts from these).
    var attached: Set<Int> { held.withLock { $0 ?? [] } }

    /// Gives back the use and `attached`, the fetches the body holds at its end. Idempotent.
    func release(attached: Set<Int>) {
        let wasHeld = held.withLock { value -> Bool in
            defer { value = nil }
            return value != nil
        }
        guard wasHeld else { return }
        entry.detach(attached)
        entry.endUse()
    }

    deinit {
        if let attached = held.withLock({ $0 }) {
            entry.detach(attached)
            entry.endUse()
        }
    }
}
