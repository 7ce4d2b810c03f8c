import Foundation
import Testing

/// The module graph goes one way, as docs/ARCHITECTURE.md draws it: every module imports only
/// modules of a lower layer, the leaves depend on nothing, and the server's frameworks stay in
/// the server. Read from the `import` lines of Sources, so a new import that breaks the layering
/// fails here before it spreads.
@Suite struct ModuleGraphTests {
    /// Each module's layer: a module may import only modules of a lower layer.
    static let layers: [String: Int] = [
        "MediaFormats": 0, "Routing": 0, "TunerAPI": 0, "Tus": 0, "CZlib": 0, "CAllocatorTuning": 0,
        "Fetching": 1, "TunerStorage": 1, "ServerLink": 1, "TusServer": 1,
        "MediaCache": 2, "Catalog": 2, "Transfers": 2, "TunerTesting": 2, "tuner-live-origin": 3,
        "Outputs": 3, "Streaming": 3,
        "LiveTV": 4,
        "TunerApp": 5,
        "TunerServer": 6,
        "tuner": 7,
    ]

    /// Modules whose clients must not pull in anything: Foundation and the platform alone.
    static let leaves: Set = ["MediaFormats", "Routing", "TunerAPI"]
    static let platform: Set = ["Foundation", "Glibc", "Musl", "Darwin", "Synchronization"]

    /// The HTTP server's frameworks: TunerServer alone serves HTTP.
    static let serverFrameworks: Set = [
        "Hummingbird", "HummingbirdCore", "HummingbirdWebSocket", "ServiceLifecycle", "Prometheus", "NIOHTTPTypes",
        "NIOExtras",
    ]

    /// The files of the feature layer and the stream and live services that may speak NIO's HTTP/1
    /// types (issue 27, point 1): the features none, the services only where they convert
    /// MediaCache's headers. Each list may only shrink.
    static let nioHTTPAllowed: [String: Set<String>] = [
        "TunerApp": [],
        "Streaming": ["Streaming/StreamService.swift"],
        "LiveTV": [],
    ]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
    }

    /// Every `import` of every Swift file, by module and file (relative to Sources).
    static func imports() throws -> [(module: String, file: String, imported: String)] {
        var found: [(String, String, String)] = []
        let root = sources.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let module = String(path.prefix { $0 != "/" })
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                guard words.count >= 2, words[0] == "import" else { continue }
                found.append((module, path, String(words[1])))
            }
        }
        return found
    }

    @Test func everyModuleImportsOnlyLowerLayers() throws {
        let all = try Self.imports()
        #expect(Set(all.map(\.module)).isSubset(of: Set(Self.layers.keys)), "a module without a layer")
        for entry in all {
            guard let own = Self.layers[entry.module], let other = Self.layers[entry.imported] else { continue }
            #expect(other < own, "\(entry.file) imports \(entry.imported), a layer not below \(entry.module)")
        }
    }

    @Test func leavesImportThePlatformAlone() throws {
        for entry in try Self.imports() where Self.leaves.contains(entry.module) {
            #expect(Self.platform.contains(entry.imported), "\(entry.file) imports \(entry.imported)")
        }
    }

    @Test func onlyTheServerUsesTheServerFrameworks() throws {
        for entry in try Self.imports() where Self.serverFrameworks.contains(entry.imported) {
            #expect(entry.module == "TunerServer", "\(entry.file) imports \(entry.imported)")
        }
    }

    @Test func featuresAndStreamServicesSpeakNoNewNIOHTTP() throws {
        let imports = try Self.imports()
        for (module, allowed) in Self.nioHTTPAllowed {
            let speaking = Set(imports.filter { $0.module == module && $0.imported == "NIOHTTP1" }.map(\.file))
            #expect(speaking.isSubset(of: allowed), "\(speaking.subtracting(allowed)) import NIOHTTP1")
        }
    }

    /// The engine's services and stores, which controllers reach only through TunerApp's feature
    /// objects (``LiveChannels``, ``StreamProxy``, ``Library``, …; issue 27, point 1).
    static let servicesControllersMustNotName = [
        "streams", "live", "cache", "catalog", "uploads", "transfers", "signer", "catalogImporter",
        "catalogScheduler", "streamChecker", "runTransfers",
    ]
    /// Controller files that still name one of them, with the name. The list may only shrink.
    static let controllersNamingServices: Set<String> = []
    /// The service and store types behind the feature objects, which no controller names either
    /// (a value type inside one, such as `LiveSessions.Request`, may be named).
    static let typesControllersMustNotName = [
        "TusUploadStore", "SQLiteCatalogStore", "TransferManager", "StreamService", "StreamLinkSigner", "LiveSessions",
    ]

    @Test func controllersReachServicesThroughFeatureObjects() throws {
        let folder = Self.sources.appendingPathComponent("TunerServer/Controllers")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for name in Self.servicesControllersMustNotName {
                // `engine.live` but not `engine.liveChannels`: the name ends where no identifier goes on.
                let pattern = "engine\\.\(name)(?![A-Za-z0-9_])"
                guard text.range(of: pattern, options: .regularExpression) != nil else { continue }
                #expect(
                    Self.controllersNamingServices.contains("\(file): \(name)"),
                    "\(file) names engine.\(name): call a feature object in TunerApp instead")
            }
            for type in Self.typesControllersMustNotName {
                let pattern = "\\b\(type)(?![A-Za-z0-9_.])"
                #expect(
                    text.range(of: pattern, options: .regularExpression) == nil,
                    "\(file) names \(type): call a feature object in TunerApp instead")
            }
        }
    }
}
