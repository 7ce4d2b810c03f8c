import Crypto
import Foundation
import MediaFormats

/// Which parser this run exercises:
/// `TUNER_FUZZ_TARGET=hls|m3u|xmltv|redact|range|catchup|payload|discovery|ts|request`
/// (see `scripts/fuzz`). One binary for all targets keeps the sanitizer build to one.
///
/// The small dependency-free parsers of other modules (Range headers, catch-up templates, byte
/// sizes, header numbers, Retry-After) are compiled in from `Linked/` (symbolic links to their sources), so
/// fuzzing them does not need a sanitizer build of NIO, GRDB and the HTTP client.
nonisolated(unsafe) private var target = "hls"

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
) -> CInt {
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
    case "range": fuzzRanges(bytes)
    case "catchup": fuzzCatchup(bytes)
    case "payload": fuzzPayload(bytes)
    case "discovery": fuzzDiscovery(bytes)
    case "ts": fuzzTS(bytes)
    case "request": fuzzRequest(bytes)
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
    for programme in whole.programmes {
        blackHole(Int(truncatingIfNeeded: programme.start.secondsSince1970) &+ programme.start.description.utf8.count)
    }
    blackHole(whole.channels.count &+ whole.programmes.count &+ events)
}

/// Redaction must never trap and must be stable: redacting twice changes nothing more.
private func fuzzRedactor(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let once = SecretRedactor.redact(text)
    blackHole(SecretRedactor.redactURL(text).utf8.count &+ once.utf8.count)
}

/// `Range` headers against lengths from the input, and the other header numbers and sizes.
private func fuzzRanges(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    var lengthSeed: Int64 = 0
    for byte in bytes.prefix(8) { lengthSeed = lengthSeed << 8 | Int64(byte) }
    var sink = 0
    if let request = ByteRangeRequest(headerValue: text) {
        for length in [
            Int64(0), 1, 1000, Int64.max,
            lengthSeed.magnitude > 0 ? Int64(truncatingIfNeeded: lengthSeed.magnitude) : 0,
        ] {
            for range in request.resolve(length: length) {
                // What a server does with a resolved range: its length and its last byte.
                precondition(
                    range.lowerBound >= 0 && range.upperBound <= length, "a resolved range leaves the resource")
                sink &+= Int(truncatingIfNeeded: range.upperBound - range.lowerBound)
            }
            for spec in request.ranges { sink &+= spec.headerValue.utf8.count }
        }
    }
    sink &+= Int(truncatingIfNeeded: HeaderNumber.nonNegative(text) ?? 0)
    sink &+= Int(truncatingIfNeeded: ByteCount.parse(text) ?? 0)
    if let delay = RetryPolicy.parseRetryAfter(text, now: Date(timeIntervalSince1970: 1_700_000_000)) {
        // What callers do with it: a Duration and a timer.
        precondition(delay >= 0 && delay <= RetryPolicy.longestRetryAfter, "Retry-After out of bounds")
        sink &+= Int(Duration.seconds(delay).components.seconds)
    }
    blackHole(sink)
}

/// Catch-up templates and times, all from the input: the first 24 bytes are three times.
private func fuzzCatchup(_ bytes: [UInt8]) {
    guard bytes.count >= 24 else { return }
    func time(_ at: Int) -> Int64 {
        var value: Int64 = 0
        for byte in bytes[at..<(at + 8)] { value = value << 8 | Int64(byte) }
        return value
    }
    let rest = String(decoding: bytes[24...], as: UTF8.self)
    let parts = rest.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let type = parts.first ?? "default"
    let source = parts.count > 1 ? parts[1] : nil
    let stream = parts.count > 2 ? parts[2] : "http://provider.example/live/u/p/1.ts"
    let catchup = CatalogCatchup(type: type, days: Int(bytes[0]), source: source)
    let request = CatchupURLBuilder.Request(
        streamURL: stream, catchup: catchup, start: time(0), end: time(8), now: time(16))
    blackHole(CatchupURLBuilder.url(for: request)?.utf8.count ?? 0)
    blackHole(CatchupURLBuilder.fill(rest, request).utf8.count)
}

/// The proxy-URL decoder, two ways: the input as a URL's two middle components (what anyone can
/// send: must be refused), and the input sealed with a signer's own key (what only Tuner makes:
/// reaches the JSON decoding and the link checks).
///
/// The two ways use different keys. libFuzzer learns the strings a run compares (the verified-link
/// cache compares keys), so with one key it copied a URL the harness had itself sealed into a later
/// input, which then verified, correctly: a genuine URL replayed, not a forgery. With two keys, a
/// raw input can verify only by forging the first key's seal.
nonisolated(unsafe) private let refusingKey = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
private let refusingSigner = StreamLinkSigner(key: refusingKey)
nonisolated(unsafe) private let sealingKey = SymmetricKey(data: [UInt8](repeating: 9, count: 32))
private let sealingSigner = StreamLinkSigner(key: sealingKey)
nonisolated(unsafe) private let fuzzSealKey = HKDF<SHA256>.deriveKey(
    inputKeyMaterial: sealingKey, info: Data("tuner proxy URL payload v2".utf8), outputByteCount: 32)

private func fuzzPayload(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    if parts.count == 2, (try? refusingSigner.verify(signature: parts[0], payload: parts[1])) != nil {
        fatalError("an input not made with the key was accepted")
    }
    guard let box = try? ChaChaPoly.seal(bytes, using: fuzzSealKey) else { return }
    let nonce = Data(box.nonce).base64URLEncodedString()
    let body = (box.ciphertext + box.tag).base64URLEncodedString()
    if let link = try? sealingSigner.verify(signature: nonce, payload: body) {
        // A decoded link is one the proxy would fetch: it must be valid, and survive a round trip.
        guard (try? link.validate()) != nil, let path = try? sealingSigner.path(for: link) else {
            fatalError("an invalid link decoded")
        }
        blackHole(path.utf8.count &+ link.headers.count)
    }
}

@inline(never)
/// HDHomeRun discovery frames and SSDP searches, as any machine on the LAN may send them.
private func fuzzDiscovery(_ bytes: [UInt8]) {
    if let request = HDHomeRunPacket.parseRequest(bytes) {
        blackHole(request.matches(deviceID: 0x1054_A1B9) ? 1 : 0)
        // What Tuner would answer, read back: its own frames always parse.
        let reply = HDHomeRunPacket.reply(
            .init(
                deviceID: request.deviceID, tunerCount: Int(request.deviceType & 0xFF), baseURL: "http://10.0.0.2:8080",
                lineupURL: "http://10.0.0.2:8080/lineup.json", deviceAuth: "tuner"))
        precondition(HDHomeRunPacket.parseReply(reply) != nil, "Tuner's own reply does not parse")
    }
    blackHole(HDHomeRunPacket.parseReply(bytes)?.count ?? 0)
    if let target = SSDP.searchTarget(bytes) {
        blackHole(SSDP.reply(target: target, uuid: "u", location: "http://h/device.xml").utf8.count)
    }
}

/// The bytes the stream front end reads before NIO's decoder (`StreamRequestParser`): whatever
/// arrives, a head it takes ends in CRLF CRLF within the bytes and the length limit, names a plain
/// `/stream/` target and one `Host`; every shorter prefix of it is only `incomplete` (a head
/// read in pieces reads the same), and bytes after it change nothing.
private func fuzzRequest(_ bytes: [UInt8]) {
    let outcome = bytes.withUnsafeBytes { StreamRequestParser.parse($0) }
    guard case .request(let head, let length) = outcome else {
        if case .incomplete = outcome {
            precondition(bytes.count < StreamRequestParser.maximumHeadLength, "incomplete past the head limit")
        }
        return
    }
    precondition(length >= 4 && length <= bytes.count && length <= StreamRequestParser.maximumHeadLength)
    precondition(bytes[(length - 4)..<length].elementsEqual("\r\n\r\n".utf8), "a head that does not end the head")
    precondition(head.target.hasPrefix("/stream/"), "a target outside /stream/")
    precondition(head.target.utf8.allSatisfy(StreamRequestBytes.isPlainPathByte), "a target that is not plain")
    precondition(head.host != nil, "a head without Host")
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % length
    let prefix = Array(bytes[..<split])
    guard case .incomplete = prefix.withUnsafeBytes({ StreamRequestParser.parse($0) }) else {
        fatalError("a prefix of a head it takes is not incomplete")
    }
    let more = Array(bytes[..<length]) + Array("GET /x HTTP/1.1\r\n".utf8)
    guard case .request(let again, length) = more.withUnsafeBytes({ StreamRequestParser.parse($0) }),
        again.target == head.target, again.host == head.host, again.range == head.range,
        again.ifRange == head.ifRange
    else {
        fatalError("the bytes after a head changed how it reads")
    }
    blackHole(length &+ head.target.utf8.count &+ (head.range?.utf8.count ?? 0))
}

/// MPEG-TS from an upstream: packet headers at every offset, continuity between neighbours, and
/// the search for packet alignment.
private func fuzzTS(_ bytes: [UInt8]) {
    var previous: TSPacket?
    var offset = TSPacket.alignment(in: bytes) ?? 0
    while offset + TSPacket.size <= bytes.count {
        let slice = bytes[offset..<(offset + TSPacket.size)]
        let packet = TSPacket(slice)
        if let packet, let previous { blackHole(previous.isFollowed(by: packet) ? 1 : 0) }
        blackHole(Int(packet?.pcr.map { $0 & 0xFFFF } ?? 0))
        // Live sessions read tables from whatever a provider sends: a PMT's streams, a PSI pointer.
        blackHole(Int(packet?.tableID(in: slice) ?? 0))
        blackHole(TSProgramMap(packet: Array(slice))?.streams.count ?? 0)
        var monitor = TSProgressMonitor()
        if let packet { blackHole(monitor.observe(packet) ? 1 : 0) }
        previous = packet
        offset += TSPacket.size
    }
}

private func blackHole(_ value: Int) {
    if value == Int.min { print("") }
}

/// SwiftPM names an executable's entry point `<module>_main` and points `main` at it; libFuzzer's
/// own `main` is therefore not used, and this one hands over to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
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
