import NIOHTTP1
import Testing

@testable import MediaCache

@Suite struct ByteRangeRequestTests {
    @Test func parsesTheThreeFormsAndResolvesThem() throws {
        let request = try #require(ByteRangeRequest(headerValue: "bytes=0-99, 200-, -50"))
        #expect(request.ranges == [.closed(0, 99), .from(200), .suffix(50)])
        #expect(request.resolve(length: 1000) == [0..<100, 200..<1000])
        #expect(ByteRangeSpec.closed(0, 5000).resolve(length: 1000) == 0..<1000)
        #expect(ByteRangeSpec.suffix(5000).resolve(length: 1000) == 0..<1000)
        #expect(ByteRangeSpec.from(1000).resolve(length: 1000) == nil)
        #expect(ByteRangeSpec.suffix(0).resolve(length: 1000) == nil)
    }

    @Test func malformedHeadersAreIgnored() {
        for value in [
            "", "bytes=", "bytes=a-b", "items=0-1", "bytes=5-1", "bytes=-", "bytes=1-2-3", "bytes=0x10-20", "bytes=--5",
        ] {
            #expect(ByteRangeRequest(headerValue: value) == nil, "\(value)")
        }
        let many = "bytes=" + (0..<100).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect(ByteRangeRequest(headerValue: many) == nil, "too many ranges is refused like nginx does")
    }

    @Test func hostileNumbersAndSpacingAreReadByTheRules() throws {
        // Overflow, signs, non-ASCII digits and empty specs are refused, never trapped on.
        for value in [
            "bytes=99999999999999999999-", "bytes=0-99999999999999999999", "bytes=-99999999999999999999",
            "bytes=+5-6", "bytes=\u{663}-5", "bytes=0-1,", "bytes=,0-1", "bytes=0 1-2", "bytes = 0-1", "bytes=\u{0}0-1",
        ] {
            #expect(ByteRangeRequest(headerValue: value) == nil, "\(value)")
        }
        #expect(ByteRangeRequest(headerValue: "  BYTES=\t0-1 ,\t-5\t")?.ranges == [.closed(0, 1), .suffix(5)])
        #expect(
            ByteRangeRequest(headerValue: "bytes=9223372036854775807-")?.ranges == [.from(Int64.max)],
            "the largest Int64 still fits")
        let exactly64 = "bytes=" + (0..<64).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect(ByteRangeRequest(headerValue: exactly64)?.ranges.count == 64)
    }

    @Test func overlappingRangesAreMerged() throws {
        let request = try #require(ByteRangeRequest(headerValue: "bytes=0-99,50-149,150-199"))
        #expect(request.resolve(length: 1000) == [0..<200])
    }

    @Test func responseLayoutReadsContentRangeAndLength() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Range", value: "bytes 100-199/5000")
        headers.add(name: "ETag", value: "\"x\"")
        let partial = ResponseLayout(status: 206, headers: headers)
        #expect(partial.bodyStart == 100)
        #expect(partial.meta == ResourceMeta(length: 5000, etag: "\"x\""))
        var unknown = HTTPHeaders()
        unknown.add(name: "Content-Range", value: "bytes 0-9/*")
        #expect(ResponseLayout(status: 206, headers: unknown).meta == nil)
        var full = HTTPHeaders()
        full.add(name: "Content-Length", value: "42")
        full.add(name: "Content-Type", value: "video/mp4")
        #expect(ResponseLayout(status: 200, headers: full).meta?.length == 42)
        full.add(name: "Content-Encoding", value: "gzip")
        #expect(
            ResponseLayout(status: 200, headers: full).meta == nil, "compressed bodies are not the resource's bytes")
        #expect(ResponseLayout.parseContentRange("bytes 5-4/10") == nil)
        #expect(ResponseLayout.parseContentRange("bytes 0-10/10") == nil)
    }

    @Test func versionsCompareByValidators() {
        let a = ResourceMeta(length: 10, etag: "\"1\"", lastModified: "Mon")
        #expect(a.isSameVersion(as: ResourceMeta(length: 10, etag: "\"1\"", lastModified: "Tue")))
        #expect(!a.isSameVersion(as: ResourceMeta(length: 10, etag: "\"2\"")))
        #expect(!a.isSameVersion(as: ResourceMeta(length: 11, etag: "\"1\"")))
        #expect(
            ResourceMeta(length: 10, lastModified: "Mon").isSameVersion(
                as: ResourceMeta(length: 10, lastModified: "Mon")))
        #expect(
            !ResourceMeta(length: 10, lastModified: "Mon").isSameVersion(
                as: ResourceMeta(length: 10, lastModified: "Tue")))
        #expect(
            ResourceMeta(length: 10, etag: "W/\"1\"", lastModified: "Mon").ifRangeValidator == "Mon",
            "weak ETags cannot be used with If-Range")
    }
}

/// Numbers from clients and origins near Int64.max: each used to trap the process.
@Suite struct HostileRangeNumberTests {
    @Test func clientRangesUpToInt64MaxResolveWithoutOverflow() throws {
        let request = try #require(ByteRangeRequest(headerValue: "bytes=0-9223372036854775807"))
        #expect(request.resolve(length: 1000) == [0..<1000])
        #expect(ByteRangeSpec.closed(Int64.max, Int64.max).resolve(length: 1000) == nil)
        #expect(ByteRangeSpec.closed(999, Int64.max).resolve(length: 1000) == 999..<1000)
        #expect(ByteRangeSpec.suffix(Int64.max).resolve(length: 1000) == 0..<1000)
        #expect(ByteRangeSpec.closed(-5, 10).resolve(length: 1000) == nil)
        #expect(ByteRangeRequest(headerValue: "bytes=0-92233720368547758070") == nil, "beyond Int64 is ignored")
        let merged = try #require(
            ByteRangeRequest(headerValue: "bytes=0-9223372036854775807,5-9223372036854775806,-9223372036854775807"))
        #expect(merged.resolve(length: 10) == [0..<10])
    }

    @Test func originContentRangeAndLengthNearInt64MaxAreRefused() throws {
        for value in [
            "bytes 0-9223372036854775807/*", "bytes 0-9223372036854775807/9223372036854775807",
            "bytes */*", "bytes */1000", "bytes +1-5/10", "bytes -1-5/10", "bytes 1-+5/10", "bytes 0-5/+10",
            "bytes 0-99999999999999999999/*", "bytes 5-1/10", "bytes 0-10/10",
        ] {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Range", value: value)
            let layout = ResponseLayout(status: 206, headers: headers)
            #expect(layout.meta == nil, "\(value)")
            #expect(ResponseLayout.parseContentRange(value) == nil, "\(value)")
        }
        let largest = try #require(ResponseLayout.parseContentRange("bytes 0-9223372036854775806/9223372036854775807"))
        #expect(largest == (0, 9_223_372_036_854_775_806, 9_223_372_036_854_775_807))
        for value in ["-5", "+5", "5 5", "0x10", "99999999999999999999", ""] {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: value)
            #expect(ResponseLayout(status: 200, headers: headers).meta == nil, "\(value)")
        }
    }
}
