import Foundation
import Testing
import TunerAPI

@testable import TunerServer

/// The web app takes its API paths from `api-paths.js`, which the server renders from the
/// endpoint table: no hand-written module writes an `/api/v1` path, and every `paths.<name>` a
/// module uses is an entry.
@Suite struct WebAPIPathsTests {
    static var handWritten: [(name: String, text: String)] {
        WebAssets.sources.filter { $0.name != APIPathsModule.name }
            .map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) }
    }

    @Test func noHandWrittenModuleWritesAnAPIPath() {
        #expect(Self.handWritten.count > 10)
        for module in Self.handWritten {
            #expect(!module.text.contains(APIEndpoint.prefix), "\(module.name) writes an API path: use api-paths.js")
        }
    }

    @Test func everyPathAModuleUsesIsAnEntry() throws {
        let names = Set(APIOperation.all.map(\.name))
        let pattern = try NSRegularExpression(pattern: #"(?<![-\w])paths\.([A-Za-z]+)\b(?!\.js)"#)
        var used = 0
        for module in Self.handWritten {
            let text = module.text as NSString
            for match in pattern.matches(in: module.text, range: NSRange(location: 0, length: text.length)) {
                let name = text.substring(with: match.range(at: 1))
                used += 1
                let known = names.contains(name)
                #expect(known, "\(module.name) uses paths.\(name), which the table does not have")
            }
        }
        #expect(used > 30)
    }

    @Test func theModuleIsServedLikeTheOthers() throws {
        let asset = try #require(WebAssets.built[APIPathsModule.name])
        #expect(asset.servedName.hasPrefix("api-paths.") && asset.servedName.hasSuffix(".js"))
        #expect(asset.contentType == "text/javascript; charset=utf-8")
        let text = String(decoding: asset.bytes, as: UTF8.self)
        #expect(text.contains("  transfer: (id) => `/api/v1/transfers/${segment(id)}`,"))
        #expect(text.contains("  health: '/api/v1/health',"))
        // A module that imports it loads it by its hashed name.
        let tv = try #require(WebAssets.built["tv.js"])
        #expect(String(decoding: tv.bytes, as: UTF8.self).contains("'./\(asset.servedName)'"))
    }
}
