import CoreMetrics
import Foundation
import Hummingbird
import LiveTV
import Prometheus
import TunerApp

/// `GET /metrics`: Prometheus' text format. Two parts: what swift-metrics recorded in this process
/// (HTTP requests by route and status, request durations, import durations), through
/// ``ProcessMetrics``; and the engine's state read at scrape time (live sessions and viewers,
/// their bytes, cache hits and misses, transfers by state), so embedders and tests that run
/// several engines in one process each see their own.
struct MetricsController {
    let engine: TunerEngine

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.get("/metrics") { [engine] _, _ in
            var text = await Self.engineMetrics(engine)
            text += ProcessMetrics.text()
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// A metric's name and help as swift-prometheus takes them (no unit suffix: the names say it).
    static func describe(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    static func engineMetrics(_ engine: TunerEngine) async -> String {
        let registry = PrometheusCollectorRegistry()
        let streams = engine.liveChannels.streams
        for profile in StreamProfile.allCases {
            let open = streams.filter { $0.profile == profile.rawValue }
            registry.makeGauge(
                descriptor: Self.describe("tuner_live_sessions", "Live sessions open now (one upstream each)"),
                labels: [("profile", profile.rawValue)]
            ).set(Double(open.count))
            registry.makeGauge(
                descriptor: Self.describe("tuner_live_viewers", "Viewers of live sessions"),
                labels: [("profile", profile.rawValue)]
            ).set(Double(open.reduce(0) { $0 + $1.viewers.count }))
        }
        registry.makeCounter(
            descriptor: Self.describe("tuner_password_hashes_total", "Password hashes run for output logins")
        )
        .increment(by: Int64(engine.outputs.passwordHashesRun))
        let totals = engine.liveChannels.totals
        registry.makeCounter(descriptor: Self.describe("tuner_live_sessions_opened_total", "Live sessions opened"))
            .increment(by: Int64(totals.sessionsOpened))
        registry.makeCounter(
            descriptor: Self.describe("tuner_live_upstream_bytes_total", "Bytes live sessions read upstream")
        )
        .increment(by: totals.upstreamBytes)
        registry.makeCounter(
            descriptor: Self.describe("tuner_live_downstream_bytes_total", "Bytes live sessions sent to viewers")
        )
        .increment(by: totals.downstreamBytes)
        registry.makeCounter(
            descriptor: Self.describe("tuner_live_failovers_total", "Switches to a channel's next alternative")
        )
        .increment(by: Int64(totals.failovers))
        registry.makeCounter(
            descriptor: Self.describe("tuner_live_resyncs_total", "Viewers moved to a keyframe after falling behind")
        )
        .increment(by: Int64(totals.resyncs))

        let statistics = engine.cacheAdmin.statistics()
        let cache = statistics.cache
        registry.makeGauge(descriptor: Self.describe("tuner_cache_bytes", "Bytes held by the media cache")).set(
            Double(cache.bytes))
        registry.makeGauge(descriptor: Self.describe("tuner_cache_capacity_bytes", "The media cache's byte budget"))
            .set(Double(cache.capacity))
        registry.makeGauge(descriptor: Self.describe("tuner_cache_entries", "Resources in the media cache")).set(
            Double(cache.entries))
        registry.makeCounter(descriptor: Self.describe("tuner_cache_hit_bytes_total", "Bytes served from the cache"))
            .increment(by: cache.hitBytes)
        registry.makeCounter(
            descriptor: Self.describe("tuner_cache_miss_bytes_total", "Bytes served while fetched from the origin")
        )
        .increment(by: cache.missBytes)
        registry.makeCounter(descriptor: Self.describe("tuner_cache_origin_bytes_total", "Bytes fetched from origins"))
            .increment(by: cache.originBytes)
        registry.makeGauge(descriptor: Self.describe("tuner_cache_active_fetches", "Origin fetches running now"))
            .set(Double(cache.activeFetches))
        for (kind, counters) in statistics.streams.sorted(by: { $0.key < $1.key }) {
            registry.makeCounter(
                descriptor: Self.describe("tuner_proxy_requests_total", "Proxy requests by kind"),
                labels: [("kind", kind)]
            ).increment(by: counters.requests)
            registry.makeCounter(
                descriptor: Self.describe("tuner_proxy_bytes_total", "Proxy bytes by kind"), labels: [("kind", kind)]
            ).increment(by: counters.bytes)
        }

        let transfers = await engine.downloads.list()
        var byState: [String: Int] = [:]
        for entry in transfers { byState[entry.task.state.rawValue, default: 0] += 1 }
        for state in byState.keys.sorted() {
            registry.makeGauge(
                descriptor: Self.describe("tuner_transfers", "Transfers by state"), labels: [("state", state)]
            )
            .set(Double(byState[state] ?? 0))
        }
        return registry.emitToString()
    }
}

/// The process's swift-metrics backend: a Prometheus registry. `tuner serve` bootstraps it once
/// (``bootstrap()``); an app embedding Tuner may bootstrap its own backend instead, and then
/// `/metrics` shows the engine's part only.
public enum ProcessMetrics {
    public static let registry = PrometheusCollectorRegistry()

    /// Makes swift-metrics record into ``registry``. Call once per process, before serving.
    public static func bootstrap() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // swift-metrics labels such as Hummingbird's `hb.requests` and `http.route` become valid
        // Prometheus names: anything but letters, digits and underscores turns into an underscore.
        factory.nameAndLabelSanitizer = { name, labels in
            (renamed[name] ?? sanitized(name), labels.map { (sanitized($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
    }

    /// Hummingbird's names, in Prometheus' conventions (counters end in `_total`, units in the name).
    static let renamed: [String: String] = [
        "hb.requests": "tuner_http_requests_total",
        "hb.request.errors": "tuner_http_request_errors_total",
        "http.server.request.duration": "tuner_http_request_duration_seconds",
        "http.server.active_requests": "tuner_http_active_requests",
    ]

    /// What the families recorded through swift-metrics mean (swift-metrics carries no help text).
    static let help: [String: String] = [
        "tuner_http_requests_total": "HTTP requests by route, method and status",
        "tuner_http_request_errors_total": "HTTP requests that failed, by route, method and status",
        "tuner_http_request_duration_seconds": "Time to answer HTTP requests, by route, method and status",
        "tuner_http_active_requests": "HTTP requests being answered now, by method",
        "tuner_import_duration_seconds": "Time source imports took, by kind and outcome",
        "tuner_stream_fast_answers_total": "Warm stream answers given on the event loop, without a request task",
    ]

    /// The registry's text, with a HELP line before each family's TYPE line.
    static func text() -> String {
        var lines: [Substring] = []
        let emitted = registry.emitToString()
        for line in emitted.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first,
                lines.last?.hasPrefix("# HELP \(name) ") != true
            {
                lines.append("# HELP \(name) \(help[String(name)] ?? "Recorded through swift-metrics")")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func sanitized(_ name: String) -> String {
        var result = String(
            name.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", ":": return Character(scalar)
                default: return "_"
                }
            })
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }
}
