import HTTPTypes
import MediaFormats
import Testing

@testable import TunerServer

/// The fields the provider-bytes rule gives an answer, in the order the stream fast path writes
/// them too: a type that does not pass (or none) becomes `application/octet-stream` with
/// `attachment`; every answer gets `nosniff` and the sandbox policy, and an origin's own fields
/// of those names are dropped.
@Suite struct ProviderBytesMiddlewareTests {
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    static func pairs(_ fields: HTTPFields) -> [String] {
        fields.map { "\($0.name.rawName): \($0.value)" }
    }

    @Test("a type that passes stays; the two fields are added after the answer's own")
    func passingType() {
        var fields = Self.fields([("Content-Type", "video/mp2t"), ("Content-Length", "10")])
        ProviderBytesMiddleware.makeInert(&fields, status: 200)
        #expect(
            Self.pairs(fields) == [
                "Content-Type: video/mp2t", "Content-Length: 10", "X-Content-Type-Options: nosniff",
                "Content-Security-Policy: sandbox; default-src 'none'",
            ])
    }

    @Test("HTML, a missing type, and the origin's own disposition and policy")
    func refusedTypes() {
        var html = Self.fields([
            ("Content-Type", "text/html"), ("Content-Length", "10"), ("Content-Disposition", "inline"),
            ("Content-Security-Policy", "script-src *"), ("X-Content-Type-Options", "sniff"),
        ])
        ProviderBytesMiddleware.makeInert(&html, status: 200)
        #expect(
            Self.pairs(html) == [
                "Content-Type: application/octet-stream", "Content-Length: 10", "Content-Disposition: attachment",
                "X-Content-Type-Options: nosniff", "Content-Security-Policy: sandbox; default-src 'none'",
            ])
        var missing = Self.fields([("Content-Length", "3")])
        ProviderBytesMiddleware.makeInert(&missing, status: 206)
        #expect(
            Self.pairs(missing) == [
                "Content-Length: 3", "Content-Type: application/octet-stream", "Content-Disposition: attachment",
                "X-Content-Type-Options: nosniff", "Content-Security-Policy: sandbox; default-src 'none'",
            ])
        // No body, no type to judge.
        var notModified = Self.fields([("ETag", "\"a\"")])
        ProviderBytesMiddleware.makeInert(&notModified, status: 304)
        #expect(
            Self.pairs(notModified) == [
                "ETag: \"a\"", "X-Content-Type-Options: nosniff",
                "Content-Security-Policy: sandbox; default-src 'none'",
            ])
    }

    @Test("every route that carries provider bytes is covered, and no other")
    func routes() {
        for route in [
            "/stream/{signature}/{payload}/{name}", "/stream/{signature}/{payload}/{name}/{file}",
            "/play/{profile}/{number}", "/live/{user}/{password}/{file}", "/movie/{user}/{password}/{file}",
            "/series/{user}/{password}/{file}", "/timeshift/{user}/{password}/{minutes}/{start}/{file}",
        ] {
            #expect(ProviderBytesMiddleware.carriesProviderBytes(route: route), "\(route)")
        }
        for route in ["/api/v1/channels/{id}/logo", "/", "/assets/{file}", "/get.php", "/xmltv.php"] {
            #expect(!ProviderBytesMiddleware.carriesProviderBytes(route: route), "\(route)")
        }
    }
}
