import MediaFormats
import Testing

/// The one `If-Range` rule the cache, the downloads and live sessions share.
@Suite struct IfRangeTests {
    @Test func aStrongETagComesFirstAndAWeakOneNeverGoes() {
        #expect(IfRange.validator(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT") == "\"v1\"")
        #expect(
            IfRange.validator(etag: "W/\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
                == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(IfRange.validator(etag: "W/\"v1\"", lastModified: nil) == nil)
        #expect(IfRange.validator(etag: nil, lastModified: nil) == nil)
    }
}
