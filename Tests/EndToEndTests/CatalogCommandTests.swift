import Foundation
import Testing
import TunerTesting

/// The catalog's commands through the real binary: a playlist with a guide, `tuner guide`,
/// `tuner channels check` and `tuner xmltv check`.
@Suite struct CatalogCommandTests {
    static func xmltvTime(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
    }

    @Test func guideAndStreamChecksFromTheCommandLine() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let now = Int64(Date().timeIntervalSince1970)
        // An hour that started half an hour ago, not the clock's hour: a run that crosses the clock's
        // hour still finds the same programme on now.
        let hour = now - 1800
        var programmes = ""
        for index in 0..<4 {
            let start = hour + Int64(index - 1) * 3600
            programmes +=
                #"<programme channel="news.example" start="\#(Self.xmltvTime(start))" stop="\#(Self.xmltvTime(start + 3600))"><title>Bulletin \#(index)</title></programme>"#
        }
        let guide = workspace.file("guide.xml")
        try Data(#"<tv><channel id="news.example"><display-name>News</display-name></channel>\#(programmes)</tv>"#.utf8)
            .write(to: URL(fileURLWithPath: guide))
        let playlist = workspace.file("list.m3u")
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="news.example",Evening News
            \(origin.baseURL)/files/news.ts?size=2000
            #EXTINF:-1,Dead Channel
            \(origin.baseURL)/files/dead.ts?status=404
            """.utf8
        ).write(to: URL(fileURLWithPath: playlist))

        let added = try await TunerProcess.run([
            "sources", "add", playlist, "--epg", guide, "--refresh-hours", "6", "--data", data,
        ])
        #expect(added.succeeded, "\(added.transcript)")
        #expect(added.output.contains("2 channels"), "\(added.transcript)")
        #expect(
            added.output.contains("4 programmes"), "the --epg guide is imported with the playlist: \(added.transcript)")

        let shown = try await TunerProcess.run(["guide", "evening", "--data", data])
        #expect(shown.succeeded, "\(shown.transcript)")
        let lines = shown.output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("now\t") && $0.contains("Bulletin 1") }, "\(shown.transcript)")
        #expect(lines.contains { $0.hasPrefix("next\t") && $0.contains("Bulletin 2") }, "\(shown.transcript)")
        #expect(lines.contains { $0.contains("Bulletin 3") }, "the next hours are listed: \(shown.transcript)")
        let unknown = try await TunerProcess.run(["guide", "nothing-like-this", "--data", data])
        #expect(!unknown.succeeded && unknown.errorOutput.contains("no channel matches"), "\(unknown.transcript)")

        let checked = try await TunerProcess.run(["channels", "check", "--data", data])
        #expect(checked.succeeded, "\(checked.transcript)")
        #expect(checked.output.contains("2 checked: 1 online, 1 offline"), "\(checked.transcript)")
        let listed = try await TunerProcess.run(["channels", "--data", data])
        #expect(listed.output.contains("offline (HTTP 404)"), "listings show the last check: \(listed.transcript)")

        let parsed = try await TunerProcess.run(["xmltv", "check", guide])
        #expect(parsed.succeeded, "\(parsed.transcript)")
        #expect(parsed.output.hasPrefix("1 channels, 4 programmes, 0 warnings"), "\(parsed.transcript)")
        try await origin.shutdown()
    }
}
