import Synchronization

/// Streams open per login (the panel's `active_cons`), counted while their bytes flow.
public final class XtreamOpenStreams: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    public init() {}

    public func opened(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    public func closed(_ name: String) {
        counts.withLock { all in
            let left = (all[name] ?? 1) - 1
            all[name] = left > 0 ? left : nil
        }
    }

    public func count(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
}
