import Foundation
import Testing
import TunerTesting

@testable import TunerApp

/// Work a client can start is bounded: a flood of requests is refused with a clear answer
/// instead of piling up tasks and memory.
@Suite struct BoundedResourcesTests {
    @Test func preloadsRunningAtOnceAreBounded() async throws {
        let harness = try await ProxyHarness.start()
        var ids: [String] = []
        // Each origin answer holds after 1,000 bytes, so every preload is still running.
        for number in 0..<PreloadJobs.maximumRunning {
            let url = harness.origin.baseURL + "/files/held-\(number).mp4?size=100000&hold=1000"
            let started = try await HTTP.fetch(
                harness.api + "/cache/preload", method: "POST", json: #"{"url":"\#(url)"}"#)
            #expect(started.status == 202)
            if let id = try HTTP.json(started)["id"] as? String { ids.append(id) }
        }
        let refused = try await HTTP.fetch(
            harness.api + "/cache/preload", method: "POST",
            json: #"{"url":"\#(harness.origin.baseURL)/files/one-more.mp4?size=1000"}"#)
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("preloads are running"))
        // Cancelling one makes room (the job leaves "running" once its task has stopped).
        #expect(try await HTTP.fetch(harness.api + "/cache/preloads/\(ids[0])", method: "DELETE").status == 200)
        var accepted = 0
        for _ in 0..<200 where accepted != 202 {
            accepted = try await HTTP.fetch(
                harness.api + "/cache/preload", method: "POST",
                json: #"{"url":"\#(harness.origin.baseURL)/files/one-more.mp4?size=1000"}"#
            ).status
            if accepted != 202 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(accepted == 202)
        for id in ids.dropFirst() { _ = try await HTTP.fetch(harness.api + "/cache/preloads/\(id)", method: "DELETE") }
        try await harness.stop()
    }
}
