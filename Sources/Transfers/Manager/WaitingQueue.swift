/// The manager's waiting tasks, kept in queue order (priority, then position, then id) as they
/// change, so a scheduling pass reads them in order and stops once every slot is taken.
///
/// Why: the manager schedules every time a task ends; sorting a queue of thousands on each pass
/// was a tenth of the CPU time of 1,000 small downloads. Here a change costs a binary search and
/// a move of small values, and a pass costs the few tasks it starts.
struct WaitingQueue {
    /// What the scheduler needs of a waiting task, kept when the task changes (its host is
    /// parsed once here, not on every scheduling pass).
    struct Entry {
        var candidate: TransferScheduler.Candidate
        var kind: TransferKind

        init(_ task: TransferTask) {
            candidate = TransferScheduler.Candidate(task)
            kind = task.kind
        }
    }

    private var byID: [Int64: Entry] = [:]
    /// Every entry of `byID`, in queue order.
    private(set) var inOrder: [Entry] = []

    init(_ tasks: some Sequence<TransferTask>) {
        for task in tasks where task.state == .waiting { byID[task.id] = Entry(task) }
        inOrder = byID.values.sorted { TransferScheduler.Candidate.runsBefore($0.candidate, $1.candidate) }
    }

    var count: Int { inOrder.count }

    /// Takes the newest state of `task`: it is in the queue exactly when it is `waiting`.
    mutating func update(_ task: TransferTask) {
        remove(task.id)
        guard task.state == .waiting else { return }
        let entry = Entry(task)
        byID[task.id] = entry
        inOrder.insert(entry, at: firstIndex(notBefore: entry.candidate))
    }

    mutating func remove(_ id: Int64) {
        guard let old = byID.removeValue(forKey: id) else { return }
        // (priority, position, id) is unique, so the first entry not before the old one is it.
        let index = firstIndex(notBefore: old.candidate)
        precondition(index < inOrder.count && inOrder[index].candidate.id == id, "waiting queue out of order")
        inOrder.remove(at: index)
    }

    /// Binary search: the first index whose entry does not run before `candidate`.
    private func firstIndex(notBefore candidate: TransferScheduler.Candidate) -> Int {
        var low = 0
        var high = inOrder.count
        while low < high {
            let middle = (low + high) / 2
            if TransferScheduler.Candidate.runsBefore(inOrder[middle].candidate, candidate) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
