import NIOCore

/// The faults a request asks for in its query string (`reset=`, `drip=`, `status=`, …).
///
/// Asking for any of them also opts the request out of the origin's random `FaultPlan`, so a test
/// that wants one precise failure gets exactly that one.
struct RequestedFaults {
    /// `reset=K`: close the connection after K body bytes.
    var resetAfter: Int?
    /// `hold=K`: after K body bytes send nothing more, but keep the connection open until the
    /// client goes away (a transfer that is certainly still running when a test acts on it).
    var holdAfter: Int?
    /// `rst=1`: make that close a TCP RST (SO_LINGER 0) instead of a FIN.
    var hardReset = false
    /// `drip=B,MS`: send B bytes, pause MS milliseconds, repeat.
    var drip: (bytes: Int, pause: TimeAmount)?
    /// `status=CODE`: answer with this status and a short text body instead of the content.
    var status: Int?
    /// `retryafter=S`: `Retry-After` seconds on a 429 or 503.
    var retryAfter: Int?
    /// `badlength=D`: declare D more bytes than are sent, then close.
    var extraDeclaredLength: Int?
    /// `norange=1`: ignore `Range`, always 200 with everything.
    var ignoreRange = false
    /// `chunked=1`: no Content-Length; chunked transfer coding.
    var chunked = false
    /// `delay=MS`: wait before sending the response head.
    var delay: TimeAmount?
    /// `flip=1`: bump the resource's version after every request, so its ETag never repeats.
    var flip = false
    /// `failfirst=N`: apply the other faults of the query only to the first N requests of this
    /// path (counted since start or `resetCounters()`); later requests are answered faithfully, so
    /// a test can make a resource fail a few times and then succeed.
    var failFirst: Int?

    /// True when the query asked for nothing, which is when the random `FaultPlan` applies.
    private(set) var isEmpty = true

    init(query: [String: String]) {
        func int(_ name: String) -> Int? {
            guard let text = query[name] else { return nil }
            return Int(text).map { max(0, $0) }
        }
        func flag(_ name: String) -> Bool {
            guard let text = query[name] else { return false }
            return text != "0" && text != "false"
        }

        resetAfter = int("reset")
        holdAfter = int("hold")
        hardReset = flag("rst")
        if let text = query["drip"] {
            let numbers = text.split(separator: ",").compactMap { Int($0) }
            if numbers.count == 2, numbers[0] > 0 {
                drip = (numbers[0], .milliseconds(Int64(max(0, numbers[1]))))
            }
        }
        status = int("status")
        retryAfter = int("retryafter")
        extraDeclaredLength = int("badlength").flatMap { $0 > 0 ? $0 : nil }
        ignoreRange = flag("norange")
        chunked = flag("chunked")
        delay = int("delay").map { .milliseconds(Int64($0)) }
        flip = flag("flip")
        failFirst = int("failfirst")

        let names = [
            "reset", "hold", "rst", "drip", "status", "retryafter", "badlength", "norange", "chunked", "delay", "flip",
            "failfirst",
        ]
        isEmpty = !names.contains { query[$0] != nil }
    }

    /// These faults for the `requestNumber`-th request (1-based) of a path: none once `failfirst=N`
    /// requests have had them. The result still opts out of the random `FaultPlan`.
    func forRequest(number requestNumber: Int) -> RequestedFaults {
        guard let failFirst, requestNumber > failFirst else { return self }
        var faithful = RequestedFaults(query: [:])
        faithful.isEmpty = false
        return faithful
    }
}
