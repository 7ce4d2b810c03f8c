import Foundation
import Testing

/// One error shape in every module (issue 27, point 4): a public error type is a struct with a
/// public `kind` (what failed, for code) and a public `description` (what failed and what to do,
/// for people), with context fields beside them; and controllers never build an `HTTPError`, they
/// throw `FeatureError` and `RedactingErrorMiddleware` answers it through the one mapping
/// (`FeatureError+HTTP.swift`). Read from Sources, like ``ModuleGraphTests``.
@Suite struct ErrorShapeTests {
    /// Public error types that keep another shape, each with its reason. May only shrink: a type
    /// brought to the shape (or gone) must leave the list.
    static let otherShapes: [String: String] = [
        // A `Result`'s failure that the tus routes switch over to pick a status; never thrown.
        "ParseFailure": "Tus: TusChecksum.ParseFailure, a Result failure, never thrown",
        // Test support: thrown only inside tests, never by a product.
        "ChildProcessError": "TunerTesting: test support",
        "ExternalCommandError": "TunerTesting: test support",
        "HLSFixturesError": "TunerTesting: test support",
        "LiveStreamError": "TunerTesting: test support",
        "LiveTSOriginError": "TunerTesting: test support",
        "TestPostgresError": "TunerTesting: test support",
    ]

    /// A declared error type: its name, whether it is public and a struct, and its body's text.
    struct Declaration {
        var name: String
        var file: String
        var isPublic: Bool
        var isStruct: Bool
        var body: String
    }

    static var sources: URL { ModuleGraphTests.sources }

    /// Every `struct`/`enum`/`class` of Sources whose declaration names `Error` among its
    /// conformances, with the text of its body (to its closing brace).
    static func errorTypes() throws -> [Declaration] {
        let declaration = try Regex(
            #"^\s*(public |package |internal |fileprivate |private )?(struct|enum|class|actor) (\w+)[^{=]*:[^{=]*\bError\b"#
        )
        var found: [Declaration] = []
        let root = sources.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                guard let match = try declaration.firstMatch(in: String(line)) else { continue }
                let access = match.output[1].substring.map(String.init) ?? ""
                let kind = match.output[2].substring.map(String.init) ?? ""
                let name = match.output[3].substring.map(String.init) ?? ""
                found.append(
                    Declaration(
                        name: name, file: path, isPublic: access == "public ", isStruct: kind == "struct",
                        body: Self.body(lines[index...])))
            }
        }
        return found
    }

    /// The lines from a declaration to the brace that closes it.
    static func body(_ lines: ArraySlice<Substring>) -> String {
        var depth = 0
        var opened = false
        var text: [Substring] = []
        for line in lines {
            text.append(line)
            for character in line {
                if character == "{" {
                    depth += 1
                    opened = true
                } else if character == "}" {
                    depth -= 1
                }
            }
            if opened && depth <= 0 { break }
        }
        return text.joined(separator: "\n")
    }

    @Test func everyPublicErrorIsAStructWithKindAndDescription() throws {
        let kind = try Regex(#"public (let|var) kind\b"#)
        let description = try Regex(#"public (let|var) description\b"#)
        let types = try Self.errorTypes()
        #expect(types.contains { $0.name == "FeatureError" }, "the scan found no error types")
        for type in types where type.isPublic && Self.otherShapes[type.name] == nil {
            #expect(type.isStruct, "\(type.file): \(type.name) is public but not a struct")
            #expect(type.body.contains(kind), "\(type.file): \(type.name) has no public `kind`")
            #expect(type.body.contains(description), "\(type.file): \(type.name) has no public `description`")
        }
    }

    @Test func theAllowListOnlyNamesTypesThatStillNeedIt() throws {
        let types = try Self.errorTypes()
        for name in Self.otherShapes.keys.sorted() {
            let type = types.first { $0.name == name && $0.isPublic }
            #expect(type != nil, "\(name) is gone or no longer public: remove it from otherShapes")
        }
    }

    /// Controllers throw `FeatureError`; the status, `Retry-After` and `WWW-Authenticate` of an
    /// error answer come from the one mapping in `FeatureError+HTTP.swift`.
    @Test func noControllerBuildsAnHTTPError() throws {
        let folder = Self.sources.appendingPathComponent("TunerServer/Controllers").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(!text.contains("HTTPError("), "Controllers/\(file) builds an HTTPError: throw a FeatureError")
        }
    }
}
