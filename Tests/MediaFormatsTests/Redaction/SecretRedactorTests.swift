import MediaFormats
import Testing

@Suite("SecretRedactor")
struct SecretRedactorTests {
    @Test("userinfo is replaced, host and path kept")
    func userinfo() {
        #expect(
            SecretRedactor.redactURL("http://alice:s3cr3t@example.com:8080/a.m3u8")
                == "http://REDACTED@example.com:8080/a.m3u8")
    }

    @Test("secret query values are replaced, others kept")
    func queryValues() {
        let url = "http://panel.example/xmltv.php?username=alice&password=s3cr3t&type=m3u_plus&Token=abc#frag"
        #expect(
            SecretRedactor.redactURL(url)
                == "http://panel.example/xmltv.php?username=REDACTED&password=REDACTED&type=m3u_plus&Token=REDACTED#frag"
        )
    }

    @Test(
        "Xtream stream paths lose their user and password", arguments: ["live", "movie", "series", "timeshift", "LIVE"])
    func xtreamPaths(kind: String) {
        #expect(
            SecretRedactor.redactURL("http://panel.example:8080/\(kind)/alice/s3cr3t/1234.ts")
                == "http://panel.example:8080/\(kind)/REDACTED/REDACTED/1234.ts")
    }

    @Test("a path that only names a kind is left alone")
    func shortPaths() {
        #expect(SecretRedactor.redactURL("http://cdn.example/live/index.m3u8") == "http://cdn.example/live/index.m3u8")
        #expect(SecretRedactor.redactURL("http://cdn.example/a/b.ts?x=1") == "http://cdn.example/a/b.ts?x=1")
    }

    @Test("every URL inside free text is redacted")
    func text() {
        let message =
            "fetch of http://u:p1@a.example/x failed; retried https://b.example/live/u/s3cr3t/1.ts (\"password=zz\")"
        let redacted = SecretRedactor.redact(message)
        #expect(!redacted.contains("p1@"))
        #expect(!redacted.contains("s3cr3t"))
        #expect(!redacted.contains("zz"))
        #expect(redacted.contains("a.example/x failed"))
        #expect(redacted.contains("https://b.example/live/REDACTED/REDACTED/1.ts"))
    }

    @Test("text without secrets comes back unchanged")
    func unchanged() {
        let message = "no URL here, a=b and key=value; http://example.com/path?q=1"
        #expect(SecretRedactor.redact(message) == message)
    }

    @Test(
        "hostile shapes never trap",
        arguments: [
            "", ":", "://", "a://", "http://@", "http://a@b@c/", "?password=",
            "password=x", "&&==", "http://h/live//x/", "http://h/live/a/b",
            "\u{0}://\u{0}", "é://ü@ö/?token=ä",
        ])
    func hostile(input: String) {
        let redacted = SecretRedactor.redact(input)
        _ = SecretRedactor.redactURL(input)
        #expect(!redacted.contains("password=x"))
    }
}
