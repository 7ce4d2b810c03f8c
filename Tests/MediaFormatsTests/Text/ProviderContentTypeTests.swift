import Foundation
import MediaFormats
import Testing

/// The allow-list of types a provider's bytes may keep, and the raster-image check of logos:
/// documents, scripts and lists never pass, whatever their case, spacing or parameters.
@Suite struct ProviderContentTypeTests {
    @Test("media, manifests, subtitles and raster images pass, with their parameters")
    func mediaPasses() {
        let passing = [
            "video/mp2t", "video/mp4", "VIDEO/MP4", "audio/aac", "audio/mpegurl", "audio/x-mpegurl",
            "application/vnd.apple.mpegurl", "application/x-mpegURL", "application/dash+xml", "application/mp4",
            "text/vtt", "text/vtt; charset=utf-8", "application/x-subrip", "text/plain; charset=utf-8",
            "image/png", "image/jpeg", "image/gif", "image/webp", " video/mp2t ", "video/mp4;codecs=\"avc1\"",
            "multipart/byteranges; boundary=abc",
        ]
        for type in passing { #expect(ProviderContentType.passes(type), "\(type)") }
    }

    @Test("documents, scripts, unknown, empty, malformed and listed types do not pass")
    func othersDoNot() {
        let refused = [
            "text/html", "text/html; charset=utf-8", "TEXT/HTML", "image/svg+xml", "application/xml", "text/xml",
            "application/xhtml+xml", "application/javascript", "text/javascript", "application/json", "text/css",
            "application/octet-stream", "application/pdf", "", " ", "video", "video/", "/mp4", "video/mp4/x",
            "video/mp4, text/html", "video/mp4; a=1, text/html", "video/mp4\u{0}", "video /mp4", "vídeo/mp4",
            "video/mp4\r\nX: y", "text/plain-but-not", "image/pngx",
        ]
        for type in refused { #expect(!ProviderContentType.passes(type), "\(type.debugDescription)") }
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16]
    static let gif = Array("GIF89a\u{1}\u{0}".utf8)
    static let webp = Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)

    @Test("a logo is a raster image by its first bytes, with a type that does not say otherwise")
    func rasterImages() {
        #expect(ProviderContentType.rasterImage(contentType: "image/png", firstBytes: Self.png) == "image/png")
        #expect(ProviderContentType.rasterImage(contentType: nil, firstBytes: Self.jpeg) == "image/jpeg")
        #expect(ProviderContentType.rasterImage(contentType: "image/jpg", firstBytes: Self.jpeg) == "image/jpeg")
        #expect(ProviderContentType.rasterImage(contentType: "image/gif", firstBytes: Self.gif) == "image/gif")
        #expect(
            ProviderContentType.rasterImage(contentType: "application/octet-stream", firstBytes: Self.webp)
                == "image/webp")
        // The bytes decide which raster type is served.
        #expect(ProviderContentType.rasterImage(contentType: "image/png", firstBytes: Self.jpeg) == "image/jpeg")
        // Anything else is refused: another type, or bytes that are not a raster image.
        #expect(ProviderContentType.rasterImage(contentType: "text/html", firstBytes: Self.png) == nil)
        #expect(ProviderContentType.rasterImage(contentType: "image/svg+xml", firstBytes: Self.png) == nil)
        #expect(ProviderContentType.rasterImage(contentType: "image/png", firstBytes: Array("<svg".utf8)) == nil)
        #expect(ProviderContentType.rasterImage(contentType: "image/png", firstBytes: Array("<html>".utf8)) == nil)
        #expect(ProviderContentType.rasterImage(contentType: nil, firstBytes: []) == nil)
        #expect(ProviderContentType.rasterImage(contentType: "image/png", firstBytes: Array(Self.png.prefix(4))) == nil)
        #expect(ProviderContentType.rasterImage(contentType: nil, firstBytes: Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
    }
}
