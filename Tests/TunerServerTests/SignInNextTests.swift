import Testing

@testable import TunerServer

/// `/login?next=` returns only to a path on this server, however the value is encoded.
@Suite struct SignInNextTests {
    @Test(
        "hostile next values become /",
        arguments: [
            "/%09/host/page", "/\t/host/page", "//evil.example/x", "/%2F%2Fevil.example", "/%2f/evil.example",
            "/%5Cevil.example", "/\\evil.example", "\\\\evil.example", "https://evil.example/", "evil.example",
            "/%0A/evil", "/%0D%0A/evil", "/%252F%252Fevil.example", "/%25252F%25252Fevil", "/a b", " /guide",
            "/%20/%09/evil",
            "/%E2%80%A8/evil", "/%C2%85/evil", "/%00", "/%7F", "", "/%", "/%zz",
            "/x" + String(repeating: "a", count: 2_100),
            "javascript:alert(1)", "/é",
        ])
    func hostile(_ value: String) {
        #expect(SignInNext.safe(value) == "/", "\(value.debugDescription)")
    }

    @Test(
        "local paths pass as they are",
        arguments: [
            "/", "/guide", "/tv?group=News%20HD", "/channel/5/play", "/search?q=a%2Bb", "/films/12",
        ])
    func local(_ value: String) {
        #expect(SignInNext.safe(value) == value)
    }

    @Test func missing() {
        #expect(SignInNext.safe(nil) == "/")
    }
}
