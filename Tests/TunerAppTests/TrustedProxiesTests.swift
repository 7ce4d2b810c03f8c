import Testing

@testable import TunerApp

/// Whose address a request is from behind a load balancer: only a trusted proxy's word counts.
@Suite struct TrustedProxiesTests {
    let proxies = try! TrustedProxies(parsing: ["10.0.0.30", "192.168.7.0/24", "fd00::1"])

    @Test func aTrustedProxysLastHopIsTheClient() {
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["10.0.0.40"]) == "10.0.0.40")
        // A chain of trusted proxies is passed over from the right.
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["10.0.0.40, 192.168.7.5"]) == "10.0.0.40")
        #expect(proxies.client(peer: "fd00::1", forwardedFor: ["2001:db8::7"]) == "2001:db8::7")
        // Two header fields read as one list, in order.
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["1.2.3.4", "10.0.0.41"]) == "10.0.0.41")
    }

    @Test func whatAClientWroteItselfIsNeverBelieved() {
        // The client put 1.2.3.4 in; the proxy appended what it saw (10.0.0.40): the latter wins.
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["1.2.3.4, 10.0.0.40"]) == "10.0.0.40")
        // Not from a trusted proxy: the header is ignored.
        #expect(proxies.client(peer: "10.0.0.40", forwardedFor: ["10.0.0.30"]) == "10.0.0.40")
        #expect(TrustedProxies.none.client(peer: "10.0.0.30", forwardedFor: ["1.2.3.4"]) == "10.0.0.30")
        // Garbage in the proxies' part, or nothing but proxies: the proxy's own address.
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["10.0.0.40, not-an-ip"]) == "10.0.0.30")
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["192.168.7.9"]) == "10.0.0.30")
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: []) == "10.0.0.30")
        let long = Array(repeating: "192.168.7.9", count: 100).joined(separator: ",")
        #expect(proxies.client(peer: "10.0.0.30", forwardedFor: ["5.6.7.8," + long]) == "10.0.0.30")
    }

    @Test func itemsThatAreNoAddressAreRefused() {
        for item in ["tv.lan", "10.0.0.0/33", "10.0.0.0/", "/8", "10.0.0.1/abc", "::1/129", ""] {
            #expect(throws: FeatureError.self, "\(item)") { try TrustedProxies(parsing: [item]) }
        }
    }
}
