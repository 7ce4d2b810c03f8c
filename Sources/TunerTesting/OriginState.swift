import Foundation
import NIOCore
import Synchronization

/// What all connections of one `TestOrigin` share: counters, resource versions, the fault plan and
/// the open connections.
///
/// Connections run on several event loop threads at once, so every access takes the lock: a
/// `Mutex` of nothing guarding the fields beside it (`LockedState` says why).
final class OriginState: @unchecked Sendable {
    private let lock = Mutex(())
    private var bodyBytesSent = 0
    private var requestCount = 0
    private var requestsByPath: [String: Int] = [:]
    private var bodyBytesByPath: [String: Int] = [:]
    private var bodySpans: [String: ClosedRange<ContinuousClock.Instant>] = [:]
    private var lastHeadersByPath: [String: [(String, String)]] = [:]
    private var lastURIByPath: [String: String] = [:]
    /// Every request target by path, oldest first (the newest 256 per path), for tests where a
    /// background request (a live session reconnecting) can come after the one they look for.
    private var urisByPath: [String: [String]] = [:]
    private var versions: [String: Int] = [:]
    private var faultPlan = FaultPlan.none
    private var faultGenerator = SplitMix64(seed: 0)
    private var staticRoot: String?
    private var uploads: [String: ReceivedUpload] = [:]
    /// The streams of `TestOrigin.serveLive`, behind their own lock.
    let liveStreams = LiveStreams()
    private var connections: [ObjectIdentifier: any Channel] = [:]
    private var isShutDown = false

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    // MARK: Uploads

    func recordUpload(_ upload: ReceivedUpload, name: String) {
        locked { uploads[name] = upload }
    }

    func upload(name: String) -> ReceivedUpload? {
        locked { uploads[name] }
    }

    // MARK: Counters

    var totalBodyBytesSent: Int { locked { bodyBytesSent } }
    var totalRequestCount: Int { locked { requestCount } }

    func addBodyBytes(_ count: Int, path: String) {
        let now = ContinuousClock.now
        locked {
            bodyBytesSent += count
            bodyBytesByPath[path, default: 0] += count
            // Two event loops may report out of order (one read the clock, then waited for the
            // lock): the span only ever widens, so it never becomes a range that traps.
            let span = bodySpans[path] ?? now...now
            bodySpans[path] = min(span.lowerBound, now)...max(span.upperBound, now)
        }
    }

    /// When the first and the last body bytes of `path` were handed over, on the origin's own
    /// threads (a test's tasks may run late on a loaded machine; these times do not).
    func bodySpan(path: String) -> ClosedRange<ContinuousClock.Instant>? {
        locked { bodySpans[path] }
    }

    var bodyBytesSentByPath: [String: Int] { locked { bodyBytesByPath } }

    func recordRequest(path: String, uri: String, headers: [(String, String)]) {
        locked {
            requestCount += 1
            requestsByPath[path, default: 0] += 1
            lastHeadersByPath[path] = headers
            lastURIByPath[path] = uri
            var uris = urisByPath[path, default: []]
            if uris.count == 256 { uris.removeFirst() }
            uris.append(uri)
            urisByPath[path] = uris
        }
    }

    func uris(path: String) -> [String] {
        locked { urisByPath[path] ?? [] }
    }

    func lastURI(path: String) -> String? {
        locked { lastURIByPath[path] }
    }

    func lastHeaders(path: String) -> [(String, String)]? {
        locked { lastHeadersByPath[path] }
    }

    func requests(path: String) -> Int {
        locked { requestsByPath[path] ?? 0 }
    }

    func resetCounters() {
        locked {
            bodyBytesSent = 0
            requestCount = 0
            requestsByPath = [:]
            bodyBytesByPath = [:]
            urisByPath = [:]
        }
    }

    // MARK: Resources

    func version(of name: String) -> Int {
        locked { versions[name] ?? 0 }
    }

    /// Returns the version to serve now, bumping afterwards when asked to, in one step so two
    /// concurrent `flip=1` requests never see the same version.
    func versionForRequest(of name: String, bumpingAfterwards bump: Bool) -> Int {
        locked {
            let current = versions[name] ?? 0
            if bump {
                versions[name] = current + 1
            }
            return current
        }
    }

    func bumpVersion(of name: String) {
        locked { versions[name, default: 0] += 1 }
    }

    var faults: FaultPlan {
        get { locked { faultPlan } }
        set {
            locked {
                faultPlan = newValue
                faultGenerator = SplitMix64(seed: newValue.seed)
            }
        }
    }

    /// Draws this request's random faults. All three draws are made every time, so whether a
    /// request carries a `Range` header does not shift the sequence for the requests after it.
    func drawFaults() -> FaultDraw {
        locked {
            guard !faultPlan.isNone else { return .none }
            let serverError = faultGenerator.nextUnitInterval() < faultPlan.serverErrorProbability
            let ignoreRange = faultGenerator.nextUnitInterval() < faultPlan.ignoreRangeProbability
            let reset = faultGenerator.nextUnitInterval() < faultPlan.resetProbability
            let fraction = faultGenerator.nextUnitInterval()
            return FaultDraw(serverError: serverError, ignoreRange: ignoreRange, resetFraction: reset ? fraction : nil)
        }
    }

    var staticDirectory: String? {
        get { locked { staticRoot } }
        set { locked { staticRoot = newValue } }
    }

    // MARK: Connections

    /// Tracks a new connection until it closes, so `shutdown()` can close the ones still open
    /// instead of leaving them to the next test. Returns false once shut down.
    func register(_ channel: any Channel) -> Bool {
        let accepted = locked {
            guard !isShutDown else { return false }
            connections[ObjectIdentifier(channel)] = channel
            return true
        }
        if accepted {
            channel.closeFuture.whenComplete { _ in
                self.locked { _ = self.connections.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return accepted
    }

    /// Marks the origin shut down and hands back the connections still open.
    func shutDown() -> [any Channel] {
        locked {
            isShutDown = true
            return Array(connections.values)
        }
    }
}
