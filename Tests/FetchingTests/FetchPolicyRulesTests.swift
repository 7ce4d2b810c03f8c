import Foundation
import MediaFormats
import Testing

/// The policy's rules, pure: parsing, address classes, CIDR edges and ports.
@Suite struct FetchPolicyRulesTests {
    static func address(_ text: String) -> IPAddress { IPAddress(text)! }

    @Test func rulesParseAndPrintBack() throws {
        for text in [
            "any", "loopback", "remote", "remote,127.0.0.1:8096", "10.0.0.0/8", "[::1]:9000", "provider.example",
            "remote,provider.example:8080,[fd00::]/8,192.168.1.0/24,10.1.2.3",
        ] {
            let policy = try FetchPolicy(parsing: text)
            #expect(policy.description == text, "\(text)")
            #expect(try FetchPolicy(parsing: policy.description) == policy)
        }
        #expect(try FetchPolicy(parsing: " Remote , PROVIDER.example. ").description == "remote,provider.example")
        #expect(try FetchPolicy(parsing: "::1").rules == [.network(Self.address("::1"), prefixLength: 128, port: nil)])
    }

    @Test func oddSpellingsAndBrokenRulesAreConfigurationErrors() {
        for text in [
            "127.1", "2130706433", "0x7f.1", "0x7f000001", "10.0.0.0/33", "[::1]/129", "host:0", "host:65536",
            "host:abc", "", "remote,", "10.0.0.0/8:80", "[::1", "[::1]x", "bad_name", "http://x", "a..b", "-a.b",
            "[10.0.0.1]", "10.0.0.0/", "10.0.0.0/a", "10.0.0.256",
        ] {
            #expect(throws: FetchPolicyError.self, "\(text)") { try FetchPolicy(parsing: text) }
        }
    }

    @Test func addressesAreClassifiedThroughMappedAndCompatibleIPv6() {
        for text in ["127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::127.0.0.1"] {
            #expect(Self.address(text).isLoopback, "\(text)")
        }
        #expect(Self.address("::ffff:7f00:1") == Self.address("127.0.0.1"))
        #expect(Self.address("0.0.0.0").isUnspecified && Self.address("0.1.2.3").isUnspecified)
        #expect(Self.address("::").isUnspecified && Self.address("::ffff:0.0.0.0").isUnspecified)
        #expect(Self.address("169.254.169.254").isLinkLocal && Self.address("fe80::1").isLinkLocal)
        #expect(Self.address("febf::1").isLinkLocal && !Self.address("fec0::1").isLinkLocal)
        #expect(Self.address("224.0.0.1").isMulticast && Self.address("ff02::1").isMulticast)
        #expect(Self.address("255.255.255.255").isMulticast)
        for text in [
            "127.0.0.1", "::1", "0.0.0.0", "::", "169.254.1.1", "fe80::1", "224.0.0.251", "ff02::fb",
            "::ffff:127.0.0.1", "::ffff:169.254.169.254",
        ] {
            #expect(FetchPolicy.isThisMachine(Self.address(text)), "\(text)")
        }
        for text in ["10.0.0.1", "192.168.1.1", "172.16.0.1", "100.64.0.1", "fd00::1", "8.8.8.8", "2001:db8::1"] {
            #expect(!FetchPolicy.isThisMachine(Self.address(text)), "\(text)")
        }
        #expect(IPAddress("127.1") == nil && IPAddress("0x7f.0.0.1") == nil && IPAddress("2130706433") == nil)
    }

    @Test func remoteRefusesThisMachineOnEveryResolvedAddress() {
        let remote = FetchPolicy.remote
        func allowed(_ addresses: [String], host: String = "provider.example", local: Set<IPAddress> = []) -> Bool {
            remote.permits(host: host, port: 80, addresses: addresses.map(Self.address), localAddresses: local)
        }
        #expect(allowed(["10.0.0.1"]) && allowed(["192.168.0.10", "fd00::2"]) && allowed(["8.8.8.8"]))
        #expect(!allowed(["127.0.0.1"]) && !allowed(["::ffff:127.0.0.1"]) && !allowed(["0.0.0.0"]))
        #expect(!allowed(["169.254.169.254"]) && !allowed(["fe80::1"]) && !allowed(["ff02::1"]) && !allowed(["::"]))
        // One bad address among good ones: the client may connect to any of them.
        #expect(!allowed(["10.0.0.1", "127.0.0.1"]))
        #expect(!allowed([]))
        // This machine's own interface address is this machine too.
        #expect(!allowed(["10.231.0.1"], local: [Self.address("10.231.0.1")]))
        #expect(FetchPolicy.any.permits(host: "x", port: 1, addresses: [], localAddresses: []))
    }

    @Test func rulesMatchNetworksAtTheirEdgesAndPorts() throws {
        let policy = try FetchPolicy(parsing: "10.0.0.0/8,127.0.0.1:8096,[::1]:9000,provider.example:8080,fd00::/8")
        func allowed(_ address: String, port: Int = 80, host: String = "x.example") -> Bool {
            policy.permits(host: host, port: port, addresses: [Self.address(address)], localAddresses: [])
        }
        #expect(allowed("10.0.0.0") && allowed("10.255.255.255") && allowed("::ffff:10.1.2.3"))
        #expect(!allowed("9.255.255.255") && !allowed("11.0.0.0") && !allowed("192.168.1.1"))
        #expect(allowed("127.0.0.1", port: 8096) && allowed("::ffff:127.0.0.1", port: 8096))
        #expect(!allowed("127.0.0.1", port: 8097) && !allowed("127.0.0.2", port: 8096) && !allowed("::1", port: 8096))
        #expect(allowed("::1", port: 9000) && !allowed("::1", port: 9001) && !allowed("127.0.0.1", port: 9000))
        #expect(allowed("fd00::1") && allowed("fdff:ffff::1") && !allowed("fe00::1") && !allowed("fc00::1"))
        // A name rule admits that name whatever it resolves to, on its port only.
        #expect(allowed("127.0.0.1", port: 8080, host: "provider.example"))
        #expect(!allowed("127.0.0.1", port: 8081, host: "provider.example"))
        #expect(!allowed("127.0.0.1", port: 8080, host: "other.example"))

        let edges = try FetchPolicy(parsing: "192.168.1.128/25,0.0.0.0/0")
        func edge(_ address: String) -> Bool {
            edges.permits(host: "h", port: 80, addresses: [Self.address(address)], localAddresses: [])
        }
        #expect(edge("192.168.1.128") && edge("192.168.1.255") && edge("192.168.2.0"))
        #expect(edge("127.0.0.1") && !edge("::1"))
        let narrow = try FetchPolicy(parsing: "192.168.1.128/25,[2001:db8::]/32")
        func inNarrow(_ address: String) -> Bool {
            narrow.permits(host: "h", port: 80, addresses: [Self.address(address)], localAddresses: [])
        }
        #expect(!inNarrow("192.168.1.127") && inNarrow("192.168.1.128") && inNarrow("192.168.1.255"))
        #expect(!inNarrow("192.168.2.0") && inNarrow("2001:db8:ffff::1") && !inNarrow("2001:db9::1"))
    }

    @Test func loopbackAdmitsOnlyWhatSpellsThisMachine() {
        let policy = FetchPolicy.loopback
        let loopbacks = [IPAddress("127.0.0.1")!, IPAddress("::1")!]
        #expect(policy.permits(host: "localhost", port: 80, addresses: loopbacks, localAddresses: []))
        #expect(policy.permits(host: "127.0.0.1", port: 80, addresses: [loopbacks[0]], localAddresses: []))
        // A name that merely resolves to 127.0.0.1 is refused.
        #expect(!policy.permits(host: "evil.example", port: 80, addresses: [loopbacks[0]], localAddresses: []))
        #expect(!policy.permits(host: "localhost", port: 80, addresses: [IPAddress("10.0.0.1")!], localAddresses: []))
        for url in ["http://127.0.0.1:8080/a", "https://localhost/x", "http://LOCALHOST./y", "http://[::1]:9/z"] {
            #expect(policy.permits(URL(string: url)!), "\(url)")
        }
        for url in [
            "http://example.com/a", "http://10.0.0.1/", "http://127.0.0.1.nip.io/", "http://127.1/",
            "http://0x7f.0.0.1/",
            "ftp://127.0.0.1/", "file:///etc/passwd", "http://[::2]/", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/",
        ] {
            #expect(!policy.permits(URL(string: url)!), "\(url)")
        }
        #expect(!FetchPolicy.remote.permits(URL(string: "http://127.0.0.1/")!))
        #expect(!FetchPolicy.remote.permits(URL(string: "http://[::ffff:127.0.0.1]/")!))
        #expect(FetchPolicy.remote.permits(URL(string: "http://provider.example/")!))
    }
}
