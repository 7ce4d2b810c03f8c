import Foundation

/// A streaming reader of IPTV M3U playlists: feed it chunks of bytes as they arrive and it emits
/// each entry as soon as its URL line completes, holding at most one line and one entry.
///
/// ```swift
/// var parser = M3UParser()
/// for chunk in chunks {
///     parser.feed(chunk) { event in
///         if case .entry(let entry) = event { store(entry) }
///     }
/// }
/// parser.finish { event in … }
/// ```
///
/// It never fails: anything it cannot make sense of is skipped and reported as a
/// ``M3UWarning`` event (line number and what), so one bad line never loses a playlist.
public struct M3UParser: Sendable {
    /// Limits that keep memory constant on hostile input.
    public struct Options: Sendable, Hashable {
        /// Lines longer than this many bytes are skipped with a warning, so a file without line
        /// breaks cannot make the parser buffer all of it.
        public var maxLineLength: Int

        public init(maxLineLength: Int = 1 << 20) {
            self.maxLineLength = maxLineLength
        }
    }

    /// What the parser reports, in playlist order.
    public enum Event: Sendable, Hashable {
        /// The `#EXTM3U` line was read (again, merged, if a playlist repeats it).
        case header(M3UPlaylistHeader)
        /// An entry is complete.
        case entry(M3UEntry)
        /// Something was tolerated or skipped.
        case warning(M3UWarning)
    }

    public let options: Options
    /// The `#EXTM3U` attributes read so far; `nil` until an `#EXTM3U` line is seen.
    public private(set) var header: M3UPlaylistHeader?
    /// How many entries have been emitted.
    public private(set) var entryCount = 0
    /// How many warnings have been emitted.
    public private(set) var warningCount = 0

    /// Bytes of a line that is not complete yet (the tail of the previous chunk).
    private var carry: [UInt8] = []
    /// The current line is over the limit: drop bytes until its end.
    private var skippingLongLine = false
    /// The previous chunk ended in CR, so a LF at the start of the next one is the same line end.
    private var previousChunkEndedInCR = false
    private var lineNumber = 0
    private var sawFirstLine = false
    private var finished = false

    /// The entry being assembled from the tags since the last URL line.
    private var pending = M3UEntry(url: "")
    private var pendingStarted = false
    private var pendingHasExtInf = false
    private var pendingLine = 0
    /// Warnings found while reading the current line, emitted before whatever the line completes.
    private var lineWarnings: [M3UWarning] = []

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads the next chunk of the playlist (any size, split anywhere, even inside a UTF-8
    /// sequence or a CRLF) and reports what it completes.
    public mutating func feed(_ chunk: some ContiguousBytes, onEvent: (Event) throws -> Void) rethrows {
        try chunk.withUnsafeBytes { bytes in
            try consume(bytes, onEvent)
        }
    }

    /// Ends the playlist: reads a last line that had no line break, and reports an `#EXTINF`
    /// that never got its URL. Feeding after this starts nothing new.
    public mutating func finish(onEvent: (Event) throws -> Void) rethrows {
        guard !finished else { return }
        finished = true
        if !carry.isEmpty || skippingLongLine {
            try completeCarriedLine(onEvent)
        }
        if pendingHasExtInf {
            try emit(.warning(M3UWarning(line: pendingLine, kind: .entryWithoutURL, detail: pending.title)), onEvent)
        }
        pending = M3UEntry(url: "")
        pendingStarted = false
        pendingHasExtInf = false
    }

    /// Parses a whole playlist held in memory.
    public static func parse(_ bytes: some ContiguousBytes, options: Options = Options()) -> M3UPlaylist {
        var parser = M3UParser(options: options)
        var playlist = M3UPlaylist()
        let collect: (Event) -> Void = { event in
            switch event {
            case .header(let header): playlist.header = header
            case .entry(let entry): playlist.entries.append(entry)
            case .warning(let warning): playlist.warnings.append(warning)
            }
        }
        parser.feed(bytes, onEvent: collect)
        parser.finish(onEvent: collect)
        return playlist
    }

    /// Parses a whole playlist held in a string.
    public static func parse(_ text: String, options: Options = Options()) -> M3UPlaylist {
        parse(Array(text.utf8), options: options)
    }

    // MARK: - Lines

    private mutating func consume(_ bytes: UnsafeRawBufferPointer, _ onEvent: (Event) throws -> Void) rethrows {
        guard !finished else { return }
        let count = bytes.count
        var index = 0
        if previousChunkEndedInCR {
            previousChunkEndedInCR = false
            if count > 0, bytes[0] == 0x0A { index = 1 }
        }
        while index < count {
            var end = index
            while end < count {
                let byte = bytes[end]
                if byte == 0x0A || byte == 0x0D { break }
                end += 1
            }
            if end == count {
                keep(M3UText.slice(bytes, index, count))
                return
            }
            if carry.isEmpty, !skippingLongLine {
                lineNumber += 1
                if end - index > options.maxLineLength {
                    try emit(
                        .warning(M3UWarning(line: lineNumber, kind: .lineTooLong, detail: "\(end - index) bytes")),
                        onEvent)
                } else {
                    try processLine(M3UText.slice(bytes, index, end), onEvent)
                }
            } else {
                keep(M3UText.slice(bytes, index, end))
                try completeCarriedLine(onEvent)
            }
            if bytes[end] == 0x0D {
                if end + 1 < count {
                    if bytes[end + 1] == 0x0A { end += 1 }
                } else {
                    previousChunkEndedInCR = true
                }
            }
            index = end + 1
        }
    }

    /// Holds the start of a line until its end arrives, up to the line length limit.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        guard !skippingLongLine else { return }
        if carry.count + bytes.count > options.maxLineLength {
            skippingLongLine = true
            carry.removeAll()
            return
        }
        carry.append(contentsOf: bytes)
    }

    private mutating func completeCarriedLine(_ onEvent: (Event) throws -> Void) rethrows {
        lineNumber += 1
        if skippingLongLine {
            skippingLongLine = false
            carry.removeAll(keepingCapacity: true)
            try emit(
                .warning(
                    M3UWarning(line: lineNumber, kind: .lineTooLong, detail: "over \(options.maxLineLength) bytes")),
                onEvent)
            return
        }
        // Swap the buffer out so that processing the line may mutate `self`.
        var line: [UInt8] = []
        swap(&line, &carry)
        defer {
            line.removeAll(keepingCapacity: true)
            swap(&line, &carry)
        }
        try line.withUnsafeBytes { bytes in
            try processLine(bytes, onEvent)
        }
    }

    @inline(__always)
    private mutating func emit(_ event: Event, _ onEvent: (Event) throws -> Void) rethrows {
        switch event {
        case .entry: entryCount += 1
        case .warning: warningCount += 1
        case .header: break
        }
        try onEvent(event)
    }

    private mutating func flushLineWarnings(_ onEvent: (Event) throws -> Void) rethrows {
        guard !lineWarnings.isEmpty else { return }
        let warnings = lineWarnings
        lineWarnings.removeAll(keepingCapacity: true)
        for warning in warnings {
            try emit(.warning(warning), onEvent)
        }
    }

    private mutating func processLine(_ raw: UnsafeRawBufferPointer, _ onEvent: (Event) throws -> Void) rethrows {
        var line = raw
        if lineNumber == 1, line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
            line = M3UText.slice(line, 3, line.count)
        }
        line = M3UText.trimmed(line)
        guard let first = line.first else { return }

        if !sawFirstLine {
            sawFirstLine = true
            if !M3UText.hasPrefix(line, lowercaseLiteral: "#extm3u") {
                try emit(
                    .warning(
                        M3UWarning(line: lineNumber, kind: .missingHeader, detail: M3UText.excerpt(line, limit: 60))),
                    onEvent)
            }
        }

        if first == UInt8(ascii: "#") {
            if M3UText.hasPrefix(line, lowercaseLiteral: "#extinf") {
                if pendingHasExtInf {
                    try emit(
                        .warning(M3UWarning(line: pendingLine, kind: .entryWithoutURL, detail: pending.title)), onEvent)
                    pending = M3UEntry(url: "")
                }
                var entry = M3UEntry(url: "")
                swap(&entry, &pending)
                Self.readExtInf(line, into: &entry, lineNumber: lineNumber, warnings: &lineWarnings)
                swap(&entry, &pending)
                pendingStarted = true
                pendingHasExtInf = true
                pendingLine = lineNumber
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#extm3u") {
                readHeader(line)
                try flushLineWarnings(onEvent)
                if let header { try emit(.header(header), onEvent) }
                return
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#extgrp:") {
                pending.extGroup = M3UText.string(M3UText.trimmed(M3UText.slice(line, 8, line.count)))
                pendingStarted = true
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#extvlcopt:") {
                pending.vlcOptions.append(Self.option(M3UText.slice(line, 11, line.count), stripQuotes: true))
                pendingStarted = true
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#kodiprop:") {
                pending.kodiProperties.append(Self.option(M3UText.slice(line, 10, line.count), stripQuotes: false))
                pendingStarted = true
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#exthttp:") {
                let json = M3UText.slice(line, 9, line.count)
                if let headers = M3UHTTPHeadersJSON.parse(json) {
                    pending.extHTTPHeaders.append(contentsOf: headers)
                } else {
                    lineWarnings.append(
                        M3UWarning(line: lineNumber, kind: .invalidHTTPHeaders, detail: M3UText.excerpt(json)))
                }
                pendingStarted = true
            } else if M3UText.hasPrefix(line, lowercaseLiteral: "#ext") {
                // Unknown tags (#EXT-X-SESSION-DATA, #EXTALB, typos such as #EXTNF) are kept with
                // the entry they precede so a rewrite does not silently drop them.
                pending.otherTags.append(M3UText.string(line))
                pendingStarted = true
            }
            // Anything else starting with `#` is a comment.
            try flushLineWarnings(onEvent)
            return
        }

        let (url, headers) = M3UURLLine.split(line)
        if !pendingStarted {
            guard M3UURLLine.looksLikeLocation(url) else {
                try emit(
                    .warning(M3UWarning(line: lineNumber, kind: .junkLine, detail: M3UText.excerpt(line))), onEvent)
                return
            }
        }
        pending.url = M3UText.string(url)
        if let headers {
            pending.urlHeaders = M3UURLLine.parseHeaders(headers, line: lineNumber, warnings: &lineWarnings)
        }
        try flushLineWarnings(onEvent)
        var entry = M3UEntry(url: "")
        swap(&entry, &pending)  // move out rather than copy every field
        pendingStarted = false
        pendingHasExtInf = false
        try emit(.entry(entry), onEvent)
    }

    // MARK: - Tags

    private static func readExtInf(
        _ line: UnsafeRawBufferPointer,
        into pending: inout M3UEntry,
        lineNumber: Int,
        warnings lineWarnings: inout [M3UWarning]
    ) {
        let count = line.count
        var index = 7  // after "#EXTINF"
        if index < count, line[index] == UInt8(ascii: ":") { index += 1 }
        while index < count, M3UText.isSpace(line[index]) { index += 1 }

        var tokenEnd = index
        var tokenLooksLikeAttribute = false
        while tokenEnd < count {
            let byte = line[tokenEnd]
            if byte == UInt8(ascii: ",") || M3UText.isSpace(byte) { break }
            if byte == UInt8(ascii: "=") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                tokenLooksLikeAttribute = true
            }
            tokenEnd += 1
        }
        let token = M3UText.slice(line, index, tokenEnd)
        if token.isEmpty || tokenLooksLikeAttribute {
            lineWarnings.append(
                M3UWarning(line: lineNumber, kind: .missingDuration, detail: M3UText.excerpt(line, limit: 60)))
        } else {
            index = tokenEnd
            if let duration = M3UText.duration(token) {
                pending.duration = duration
            } else {
                lineWarnings.append(
                    M3UWarning(line: lineNumber, kind: .invalidDuration, detail: M3UText.excerpt(token)))
            }
        }

        let comma = M3UAttributeScanner.scan(
            line, from: index, stopAtComma: true, lineNumber: lineNumber, warnings: &lineWarnings
        ) { name, value in
            assignEntryAttribute(name, value, to: &pending)
        }
        if let comma {
            pending.title = M3UText.string(M3UText.trimmed(M3UText.slice(line, comma + 1, count)))
        } else {
            lineWarnings.append(
                M3UWarning(line: lineNumber, kind: .missingTitleSeparator, detail: M3UText.excerpt(line, limit: 60)))
        }
    }

    private static func assignEntryAttribute(
        _ name: UnsafeRawBufferPointer,
        _ valueBytes: UnsafeRawBufferPointer,
        to pending: inout M3UEntry
    ) {
        let value = M3UText.string(valueBytes)
        func put(_ slot: inout String?) -> Bool {
            guard slot == nil else { return false }
            slot = value
            return true
        }
        let stored: Bool
        switch M3UKnownAttribute(name) {
        case .tvgID: stored = put(&pending.tvgID)
        case .tvgName: stored = put(&pending.tvgName)
        case .tvgLogo: stored = put(&pending.tvgLogo)
        case .tvgURL: stored = put(&pending.tvgURL)
        case .groupTitle: stored = put(&pending.groupTitle)
        case .channelNumber: stored = put(&pending.channelNumber)
        case .tvgCountry: stored = put(&pending.tvgCountry)
        case .tvgLanguage: stored = put(&pending.tvgLanguage)
        case .tvgRec: stored = put(&pending.tvgRec)
        case .tvgShift: stored = put(&pending.tvgShift)
        case .radio: stored = put(&pending.radio)
        case .catchup: stored = put(&pending.catchup)
        case .catchupDays: stored = put(&pending.catchupDays)
        case .catchupSource: stored = put(&pending.catchupSource)
        case .timeshift: stored = put(&pending.timeshift)
        case .userAgent: stored = put(&pending.userAgent)
        case .httpReferrer: stored = put(&pending.httpReferrer)
        case .xTVGURL, nil: stored = false
        }
        if !stored {
            // Unknown attributes, and repeats of known ones, are kept in order rather than lost.
            pending.extraAttributes.append(M3UAttribute(name: M3UText.string(name), value: value))
        }
    }

    private mutating func readHeader(_ line: UnsafeRawBufferPointer) {
        var header = self.header ?? M3UPlaylistHeader()
        if self.header != nil {
            lineWarnings.append(
                M3UWarning(line: lineNumber, kind: .duplicateHeader, detail: M3UText.excerpt(line, limit: 60)))
        }
        _ = M3UAttributeScanner.scan(line, from: 7, stopAtComma: false, lineNumber: lineNumber, warnings: &lineWarnings)
        { name, valueBytes in
            func put(_ slot: inout String?) -> Bool {
                guard slot == nil else { return false }
                slot = M3UText.string(valueBytes)
                return true
            }
            let stored: Bool
            switch M3UKnownAttribute(name) {
            case .xTVGURL, .tvgURL:
                for url in M3UAttributeScanner.urlList(valueBytes) where !header.tvgURLs.contains(url) {
                    header.tvgURLs.append(url)
                }
                stored = true
            case .tvgShift: stored = put(&header.tvgShift)
            case .catchup: stored = put(&header.catchup)
            case .catchupDays: stored = put(&header.catchupDays)
            case .catchupSource: stored = put(&header.catchupSource)
            default: stored = false
            }
            if !stored {
                header.extraAttributes.append(
                    M3UAttribute(name: M3UText.string(name), value: M3UText.string(valueBytes)))
            }
        }
        self.header = header
    }

    /// `name=value` of `#EXTVLCOPT` / `#KODIPROP`; a bare `name` gets an empty value.
    private static func option(_ text: UnsafeRawBufferPointer, stripQuotes: Bool) -> M3UAttribute {
        let body = M3UText.trimmed(text)
        guard let equals = body.firstIndex(of: UInt8(ascii: "=")) else {
            return M3UAttribute(name: M3UText.string(body), value: "")
        }
        let name = M3UText.trimmed(M3UText.slice(body, 0, equals))
        var value = M3UText.trimmed(M3UText.slice(body, equals + 1, body.count))
        if stripQuotes, value.count >= 2, let first = value.first, first == value[value.count - 1],
            first == UInt8(ascii: "\"") || first == UInt8(ascii: "'")
        {
            value = M3UText.slice(value, 1, value.count - 1)
        }
        return M3UAttribute(name: M3UText.string(name), value: M3UText.string(value))
    }
}

/// The attribute names the model has fields for, matched on bytes without building a `String`.
enum M3UKnownAttribute {
    case tvgID, tvgName, tvgLogo, tvgURL, groupTitle, channelNumber, tvgCountry, tvgLanguage, tvgRec, tvgShift
    case radio, catchup, catchupDays, catchupSource, timeshift, userAgent, httpReferrer, xTVGURL

    init?(_ name: UnsafeRawBufferPointer) {
        // Dispatch on length first: most names are rejected or matched by one comparison.
        switch name.count {
        case 4:
            if M3UText.equals(name, lowercaseLiteral: "logo") {
                self = .tvgLogo
                return
            }
        case 5:
            if M3UText.equals(name, lowercaseLiteral: "radio") {
                self = .radio
                return
            }
        case 6:
            if M3UText.equals(name, lowercaseLiteral: "tvg-id") {
                self = .tvgID
                return
            }
        case 7:
            if M3UText.equals(name, lowercaseLiteral: "tvg-url") {
                self = .tvgURL
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "tvg-rec") {
                self = .tvgRec
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "catchup") {
                self = .catchup
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "url-tvg") {
                self = .xTVGURL
                return
            }
        case 8:
            if M3UText.equals(name, lowercaseLiteral: "tvg-name") {
                self = .tvgName
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "tvg-logo") {
                self = .tvgLogo
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "tvg-chno") {
                self = .channelNumber
                return
            }
        case 9:
            if M3UText.equals(name, lowercaseLiteral: "tvg-shift") {
                self = .tvgShift
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "timeshift") {
                self = .timeshift
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "x-tvg-url") {
                self = .xTVGURL
                return
            }
        case 10:
            if M3UText.equals(name, lowercaseLiteral: "user-agent") {
                self = .userAgent
                return
            }
        case 11:
            if M3UText.equals(name, lowercaseLiteral: "group-title") {
                self = .groupTitle
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "tvg-country") {
                self = .tvgCountry
                return
            }
        case 12:
            if M3UText.equals(name, lowercaseLiteral: "tvg-language") {
                self = .tvgLanguage
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "catchup-type") {
                self = .catchup
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "catchup-days") {
                self = .catchupDays
                return
            }
        case 13:
            if M3UText.equals(name, lowercaseLiteral: "http-referrer") {
                self = .httpReferrer
                return
            }
        case 14:
            if M3UText.equals(name, lowercaseLiteral: "channel-number") {
                self = .channelNumber
                return
            }
            if M3UText.equals(name, lowercaseLiteral: "catchup-source") {
                self = .catchupSource
                return
            }
        case 15:
            if M3UText.equals(name, lowercaseLiteral: "http-user-agent") {
                self = .userAgent
                return
            }
        default: break
        }
        return nil
    }
}
