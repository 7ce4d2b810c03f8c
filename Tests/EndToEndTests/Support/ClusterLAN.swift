import Foundation
import Testing
import TunerTesting

/// A LAN of hosts for the cluster's tests: a network namespace per host, each joined by a veth
/// pair to one bridge in a namespace of its own (the switch), all in one 10.x.y.0/24 the test
/// picks. Nothing outside these namespaces is touched; ``remove()`` deletes them whatever
/// happened.
struct ClusterLAN: Sendable {
    let tag: String
    /// `10.x.y`: host `n` is `10.x.y.n`.
    let subnet: String
    /// The namespace of each host, by name.
    let namespaces: [String: String]
    let switchNamespace: String

    /// Makes the switch and one host per `(name, last byte of its address)`.
    static func make(hosts: [(name: String, number: Int)]) async throws -> ClusterLAN {
        let tag = NetworkNamespaces.tag()
        let subnet = "10.\(Int.random(in: 100..<200)).\(Int.random(in: 0..<250))"
        let switchNamespace = "tuner-\(tag)-sw"
        var namespaces: [String: String] = [:]
        for host in hosts { namespaces[host.name] = "tuner-\(tag)-\(host.name)" }
        let lan = ClusterLAN(tag: tag, subnet: subnet, namespaces: namespaces, switchNamespace: switchNamespace)
        do {
            try await NetworkNamespaces.ip(["netns", "add", switchNamespace])
            let inSwitch = ["-n", switchNamespace]
            try await NetworkNamespaces.ip(inSwitch + ["link", "add", "br0", "type", "bridge"])
            try await NetworkNamespaces.ip(inSwitch + ["link", "set", "br0", "up"])
            for (index, host) in hosts.enumerated() {
                let namespace = namespaces[host.name]!
                try await NetworkNamespaces.ip(["netns", "add", namespace])
                // Interface names have at most 15 bytes: the tag's first six and the host's index.
                let (inner, outer) = ("tc\(tag.prefix(6))\(index)a", "tc\(tag.prefix(6))\(index)b")
                try await NetworkNamespaces.ip(["link", "add", inner, "type", "veth", "peer", "name", outer])
                try await NetworkNamespaces.ip(["link", "set", inner, "netns", namespace])
                try await NetworkNamespaces.ip(["link", "set", outer, "netns", switchNamespace])
                let inHost = ["-n", namespace]
                try await NetworkNamespaces.ip(inHost + ["link", "set", "lo", "up"])
                try await NetworkNamespaces.ip(inHost + ["addr", "add", "\(subnet).\(host.number)/24", "dev", inner])
                try await NetworkNamespaces.ip(inHost + ["link", "set", inner, "up"])
                try await NetworkNamespaces.ip(inSwitch + ["link", "set", outer, "master", "br0"])
                try await NetworkNamespaces.ip(inSwitch + ["link", "set", outer, "up"])
            }
        } catch {
            await lan.remove()
            throw error
        }
        return lan
    }

    /// `ip netns exec <host's namespace>`: what runs a command on that host.
    func on(_ host: String) throws -> [String] {
        try NetworkNamespaces.exec(in: try #require(namespaces[host], "no host \(host)"), [])
    }

    /// Ends what runs on the hosts and deletes every namespace (the links go with them).
    func remove() async {
        await NetworkNamespaces.remove(namespaces: Array(namespaces.values) + [switchNamespace])
    }
}
