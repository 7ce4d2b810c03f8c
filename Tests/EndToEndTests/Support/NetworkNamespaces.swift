import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Network namespaces joined by veth pairs, for tests across a real network boundary (iproute2's
/// `ip netns`; CI runs as root). A test makes its own namespaces with 10.x addresses inside them
/// and removes them with ``remove(namespaces:links:)`` whatever happened; never an address
/// outside them.
enum NetworkNamespaces {
    /// Whether namespaces can be made here. Not root and not CI: a known issue (a developer's
    /// machine); in CI, or without `ip`, a recorded failure, never a silent skip.
    static func available(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard getuid() == 0 || ProcessInfo.processInfo.environment["CI"] != nil else {
            // A developer's machine without root cannot make network namespaces; CI runs as root.
            withKnownIssue("needs root for `ip netns` (CI runs as root)") {
                Issue.record("not root: the network namespace test did not run", sourceLocation: sourceLocation)
            }
            return false
        }
        guard ExternalCommand.path(of: "ip") != nil else {
            Issue.record(
                "`ip` (iproute2) is not installed: install it (.ci/run does) to run this test",
                sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// A short random tag for names: interface names have at most 15 bytes.
    static func tag() -> String {
        String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(8))
    }

    /// Runs `ip <arguments>`, throwing with its output when it fails.
    @discardableResult
    static func ip(_ arguments: [String]) async throws -> CommandResult {
        let result = try await ExternalCommand.run("ip", arguments, timeout: .seconds(30))
        guard result.succeeded else {
            throw EndToEndError("ip \(arguments.joined(separator: " ")): \(result.transcript)")
        }
        return result
    }

    /// The first end of the veth pair ``link(_:_:tag:)`` makes: the one to delete when it stayed
    /// in this namespace (the other goes with it).
    static func linkName(_ tag: String) -> String { "tv\(tag)a" }

    /// `ip netns exec <namespace>` followed by `command`: how a child runs inside a namespace.
    static func exec(in namespace: String, _ command: [String]) throws -> [String] {
        let ip = try #require(ExternalCommand.path(of: "ip"), "iproute2's ip is needed")
        return [ip, "netns", "exec", namespace] + command
    }

    /// A veth pair from `first` (a namespace, or nil for this one) to `second`, each end with its
    /// address (`10.x.y.z/prefix`), up, with the namespaces' loopback up too. Returns the first
    /// end's name, for ``remove(namespaces:links:)``.
    @discardableResult
    static func link(
        _ first: (namespace: String?, address: String), _ second: (namespace: String?, address: String),
        tag: String
    ) async throws -> String {
        let names = (linkName(tag), "tv\(tag)b")
        try await ip(["link", "add", names.0, "type", "veth", "peer", "name", names.1])
        for (end, name) in [(first, names.0), (second, names.1)] {
            var inside: [String] = []
            if let namespace = end.namespace {
                try await ip(["link", "set", name, "netns", namespace])
                inside = ["netns", "exec", namespace, "ip"]
                try await ip(inside + ["link", "set", "lo", "up"])
            }
            try await ip(inside + ["addr", "add", end.address, "dev", name])
            try await ip(inside + ["link", "set", name, "up"])
        }
        return names.0
    }

    /// Ends whatever still runs in `namespaces` (only processes the test started live there),
    /// then deletes them and the links left in this namespace. Never throws: it runs after
    /// failures too.
    static func remove(namespaces: [String], links: [String] = []) async {
        for namespace in namespaces {
            let pids = (try? await ip(["netns", "pids", namespace]))?.output ?? ""
            for pid in pids.split(whereSeparator: \.isWhitespace).compactMap({ Int32($0) }) where pid > 1 {
                kill(pid, SIGKILL)
            }
            _ = try? await ip(["netns", "del", namespace])
        }
        for link in links { _ = try? await ip(["link", "del", link]) }
    }
}
