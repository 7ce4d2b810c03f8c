import Foundation
import Testing
import TunerAPI

/// `docs/guide/api.md` lists every endpoint as the table has it: below its marker the page is
/// generated, so it cannot drift. Run `UPDATE_API_DOC=1 swift test --filter APIDocumentTests`
/// to write it again after the table changed.
@Suite struct APIDocumentTests {
    static let marker =
        "<!-- Generated from TunerAPI's APIOperation.all by APIDocumentTests; edit the table, not this. -->"

    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/guide/api.md")

    /// The generated section: one row per entry.
    static func generated() -> String {
        var lines = [
            marker, "", "## Every endpoint", "",
            "Scopes: `read` < `play` < `manage` < `admin` (see [Security](security.md)). Bodies are JSON unless the",
            "answer says otherwise; a type name is the Swift type the server encodes or decodes.", "",
            "| method | path | scope | request | answer | what it does |", "|---|---|---|---|---|---|",
        ]
        for operation in APIOperation.all {
            let answer: String
            switch operation.style {
            case .json: answer = operation.answer.map { "`\($0)`" } ?? "—"
            case .webSocket: answer = "WebSocket"
            case .tus: answer = "tus 1.0"
            }
            let cells = [
                "`\(operation.method)`", "`\(operation.path)`", "`\(operation.scope.rawValue)`",
                operation.request.map { "`\($0)`" } ?? "—", answer,
                operation.summary.replacingOccurrences(of: "|", with: "\\|"),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func thePageListsTheTable() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let intro = try #require(
            text.range(of: Self.marker).map { String(text[..<$0.lowerBound]) },
            "docs/guide/api.md has no marker line \(Self.marker)")
        let expected = intro + Self.generated()
        if ProcessInfo.processInfo.environment["UPDATE_API_DOC"] == "1" {
            try expected.write(to: Self.page, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            text == expected,
            "docs/guide/api.md differs from the endpoint table: run UPDATE_API_DOC=1 swift test --filter APIDocumentTests"
        )
    }
}
