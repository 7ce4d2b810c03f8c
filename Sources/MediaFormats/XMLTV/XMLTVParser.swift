import Foundation

/// A streaming reader of XMLTV programme guides: feed it chunks of bytes (a guide can be
/// hundreds of megabytes) and it emits each channel and programme as soon as its end tag
/// arrives, holding at most one programme and one incomplete token.
///
/// ```swift
/// var parser = XMLTVParser()
/// for chunk in chunks {   // already gunzipped: compression is the caller's business
///     parser.feed(chunk) { event in
///         switch event {
///         case .channel(let channel): …
///         case .programme(let programme): …
///         case .warning(let warning): …
///         }
///     }
/// }
/// parser.finish { event in … }
/// ```
///
/// Reads UTF-8 (with or without BOM), ISO-8859-1, Windows-1252 and UTF-16 documents. It never
/// fails: malformed markup and invalid programmes are skipped and reported as warnings.
public struct XMLTVParser: Sendable {
    /// Limits that keep memory constant on hostile input.
    public struct Options: Sendable, Hashable {
        /// Longest tag, comment or other markup kept while waiting for its end.
        public var maxTokenLength: Int
        /// Longest text kept for one field (a description, say); the rest is dropped.
        public var maxTextLength: Int

        public init(maxTokenLength: Int = 16 << 20, maxTextLength: Int = 1 << 20) {
            self.maxTokenLength = maxTokenLength
            self.maxTextLength = maxTextLength
        }
    }

    /// What the parser reports, in guide order.
    public enum Event: Sendable, Hashable {
        case channel(XMLTVChannel)
        case programme(XMLTVProgramme)
        case warning(XMLTVWarning)
    }

    public let options: Options
    /// How many channels have been emitted.
    public private(set) var channelCount = 0
    /// How many programmes have been emitted.
    public private(set) var programmeCount = 0
    /// How many warnings have been emitted.
    public private(set) var warningCount = 0

    private var scanner: XMLTVScanner
    private var reader: XMLTVElementReader
    /// Bytes of an incomplete token carried over to the next chunk.
    private var buffer: [UInt8] = []
    /// Input offset of `buffer[0]`.
    private var bufferOffset = 0
    private var sniffed = false
    private var sniffBuffer: [UInt8] = []
    private var utf16: XMLTVUTF16Transcoder?
    private var finished = false

    public init(options: Options = Options()) {
        self.options = options
        scanner = XMLTVScanner(maxTokenLength: options.maxTokenLength)
        reader = XMLTVElementReader(maxTextLength: options.maxTextLength)
    }

    /// Reads the next chunk of the guide (any size, split anywhere).
    public mutating func feed(_ chunk: some ContiguousBytes, onEvent: (Event) throws -> Void) rethrows {
        guard !finished else { return }
        chunk.withUnsafeBytes { bytes in
            consume(bytes, final: false)
        }
        try drain(onEvent)
    }

    /// Ends the guide: reports a truncated document and anything still pending.
    public mutating func finish(onEvent: (Event) throws -> Void) rethrows {
        guard !finished else { return }
        if !sniffed {
            // A document shorter than the encoding sniff window.
            let pending = sniffBuffer
            sniffBuffer = []
            sniffed = true
            pending.withUnsafeBytes { consume($0, final: true) }
        } else {
            consume(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
        }
        if reader.hasOpenElements {
            reader.warn(.truncatedDocument, offset: bufferOffset, detail: "")
        }
        finished = true
        try drain(onEvent)
    }

    /// Parses a whole guide held in memory.
    public static func parse(_ bytes: some ContiguousBytes, options: Options = Options()) -> XMLTVGuide {
        var parser = XMLTVParser(options: options)
        var guide = XMLTVGuide()
        let collect: (Event) -> Void = { event in
            switch event {
            case .channel(let channel): guide.channels.append(channel)
            case .programme(let programme): guide.programmes.append(programme)
            case .warning(let warning): guide.warnings.append(warning)
            }
        }
        parser.feed(bytes, onEvent: collect)
        parser.finish(onEvent: collect)
        return guide
    }

    /// Parses a whole guide held in a string.
    public static func parse(_ text: String, options: Options = Options()) -> XMLTVGuide {
        parse(Array(text.utf8), options: options)
    }

    private mutating func drain(_ onEvent: (Event) throws -> Void) rethrows {
        guard !reader.events.isEmpty else { return }
        var events: [Event] = []
        swap(&events, &reader.events)
        defer {
            events.removeAll(keepingCapacity: true)
            swap(&events, &reader.events)
        }
        for event in events {
            switch event {
            case .channel: channelCount += 1
            case .programme: programmeCount += 1
            case .warning: warningCount += 1
            }
            try onEvent(event)
        }
    }

    private mutating func consume(_ bytes: UnsafeRawBufferPointer, final: Bool) {
        if !sniffed {
            // Look at the first four bytes for a BOM or UTF-16 before scanning anything.
            sniffBuffer.append(contentsOf: bytes)
            guard sniffBuffer.count >= 4 || final else { return }
            sniffed = true
            var head = sniffBuffer
            sniffBuffer = []
            if let (transcoder, bomLength) = XMLTVUTF16Transcoder.detect(head) {
                utf16 = transcoder
                head.removeFirst(bomLength)
                bufferOffset = bomLength
            } else if head.starts(with: [0xEF, 0xBB, 0xBF]) {
                head.removeFirst(3)
                bufferOffset = 3
            }
            head.withUnsafeBytes { scanChunk($0, final: final) }
            return
        }
        scanChunk(bytes, final: final)
    }

    private mutating func scanChunk(_ input: UnsafeRawBufferPointer, final: Bool) {
        if utf16 != nil {
            var converted: [UInt8] = []
            utf16!.transcode(input, into: &converted)
            utf16!.flushIfFinal(final, into: &converted)
            buffer.append(contentsOf: converted)
            scanBuffer(final: final)
            return
        }
        if buffer.isEmpty, !input.isEmpty {
            // Common case: no leftover, so scan the caller's bytes in place and keep only the
            // incomplete tail.
            let used = scanner.scan(input, baseOffset: bufferOffset, final: final, into: &reader)
            bufferOffset += used
            if used < input.count {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[used...]))
            }
            return
        }
        buffer.append(contentsOf: input)
        scanBuffer(final: final)
    }

    private mutating func scanBuffer(final: Bool) {
        let used = buffer.withUnsafeBytes { bytes in
            scanner.scan(bytes, baseOffset: bufferOffset, final: final, into: &reader)
        }
        bufferOffset += used
        if used == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
        } else if used > 0 {
            buffer.removeSubrange(0..<used)
        }
    }
}
