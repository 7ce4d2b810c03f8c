import Foundation
import MediaFormats

/// Which parser this run exercises: `TUNER_FUZZ_TARGET=hls|m3u|xmltv|redact` (see `scripts/fuzz`).
/// One binary for all targets keeps the sanitizer build to one.
nonisolated(unsafe) private var target = "hls"

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    target = ProcessInfo.processInfo.environment["TUNER_FUZZ_TARGET"] ?? "hls"
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    switch target {
    case "m3u": fuzzM3U(bytes)
    case "xmltv": fuzzXMLTV(bytes)
    case "redact": fuzzRedactor(bytes)
    default: fuzzHLS(bytes)
    }
    return 0
}

/// Strict and lenient parses, every accessor, a proxy-style rewrite and a re-parse of what it wrote.
private func fuzzHLS(_ bytes: [UInt8]) {
    _ = try? HLSParser().parse(bytes)
    guard let playlist = try? HLSParser(configuration: .lenient).parse(bytes) else {
        fatalError("the lenient HLS parser threw")
    }
    touch(playlist)
    let rewriter = HLSRewriter(baseURL: URL(string: "http://origin.example/live/index.m3u8?token=x")!)
    let rewritten = rewriter.rewrite(playlist) { url, kind in "/stream/\(kind)/\(url.absoluteString.utf8.count)" }
    let reparsed = try? HLSParser(configuration: .lenient).parse(rewritten.serializedBytes())
    if let reparsed { touch(reparsed) }
}

private func touch(_ playlist: HLSPlaylist) {
    var sink = 0
    for segment in playlist.segments {
        sink &+= segment.uri.utf8.count &+ (segment.byteRange?.length ?? 0) &+ segment.mediaSequenceNumber
        sink &+= segment.keys.count &+ (segment.map?.byteRange?.offset ?? 0)
        if let date = segment.programDateTime { sink &+= Int(date.timeIntervalSince1970.isFinite ? 1 : 0) }
    }
    for part in playlist.parts { sink &+= part.mediaSequenceNumber &+ (part.byteRange?.offset ?? 0) }
    sink &+= playlist.variants.count &+ playlist.iFrameVariants.count &+ playlist.renditions.count
    sink &+= playlist.sessionKeys.count &+ playlist.tags.count &+ playlist.uriReferences.count
    sink &+= playlist.start.map { Int($0.timeOffset.isFinite ? 1 : 0) } ?? 0
    sink &+= playlist.serverControl == nil ? 0 : 1
    sink &+= playlist.totalDuration.isNaN ? 0 : 1
    sink &+= playlist.serialized().utf8.count
    blackHole(sink)
}

/// The whole file, then the same bytes fed in two pieces split where the first byte says.
private func fuzzM3U(_ bytes: [UInt8]) {
    let playlist = M3UParser.parse(bytes)
    let written = M3UWriter().string(for: playlist)
    let again = M3UParser.parse(written)
    blackHole(playlist.entries.count &+ again.entries.count &+ playlist.warnings.count)
}

private func fuzzXMLTV(_ bytes: [UInt8]) {
    let whole = XMLTVParser.parse(bytes)
    var parser = XMLTVParser(options: .init(maxTokenLength: 4096, maxTextLength: 1024))
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var events = 0
    parser.feed(bytes[..<split]) { _ in events += 1 }
    parser.feed(bytes[split...]) { _ in events += 1 }
    parser.finish { _ in events += 1 }
    for programme in whole.programmes { blackHole(Int(truncatingIfNeeded: programme.start.secondsSince1970) &+ programme.start.description.utf8.count) }
    blackHole(whole.channels.count &+ whole.programmes.count &+ events)
}

/// Redaction must never trap and must be stable: redacting twice changes nothing more.
private func fuzzRedactor(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let once = SecretRedactor.redact(text)
    blackHole(SecretRedactor.redactURL(text).utf8.count &+ once.utf8.count)
}

@inline(never)
private func blackHole(_ value: Int) {
    if value == Int.min { print("") }
}

/// SwiftPM names an executable's entry point `<module>_main` and points `main` at it; libFuzzer's
/// own `main` is therefore not used, and this one hands over to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

@_cdecl("TunerFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments = argv
    var initialArgc = argc
    var initialArgv = argv
    _ = fuzzInitialize(&initialArgc, &initialArgv)
    return runFuzzerDriver(&count, &arguments) { start, count in fuzzOneInput(start, count) }
}
