import Foundation

/// The state of one parse: a single pass over the bytes that classifies each line, checks it,
/// and builds the records `HLSPlaylist` derives its views from.
///
/// Per line it does a byte scan for the line end, a tag-name lookup and, for the tags that carry
/// one, a number parse; it creates strings only for error messages, variable values and the
/// rare URIs it must compare (byte-range continuation).
struct HLSParseRun {
    let throwsOnViolation: Bool
    let playlistURL: URL?
    let importedVariables: [String: String]

    var lines: [HLSLineRecord] = []
    var segments: [HLSSegmentRecord] = []
    var variants: [HLSVariantRecord] = []
    var iFrameVariantLines: [Int] = []
    var renditionLines: [Int] = []
    var sessionKeyLines: [Int] = []
    var parts: [HLSPartRecord] = []
    var keySets: [[Int]] = []
    var header = HLSHeader()
    var variables: [String: String] = [:]
    var warnings: [HLSParseError] = []

    // The segment being assembled from the tags since the previous URI line.
    private var segmentFirstLine = 0
    private var pendingExtInf = -1
    private var pendingDuration = 0.0
    private var pendingByteRange: (length: Int, offset: Int?)?
    private var pendingByteRangeLine = -1
    private var pendingDiscontinuity = false
    private var pendingGap = false
    private var pendingProgramDateTime = -1
    private var pendingStreamInf = -1

    // State that carries over from segment to segment.
    private var currentMap = -1
    private var currentKeys: [(line: Int, format: String)] = []
    private var currentKeySet = -1
    private var keysChanged = false
    private var discontinuitySequence = 0
    private var skippedSoFar = 0
    private var byteRangeEnds: [String: Int] = [:]
    private var partByteRangeEnds: [String: Int] = [:]

    // Playlist-wide checks.
    private var seenOnce: UInt64 = 0
    private var firstMasterLine = -1
    private var firstMediaLine = -1
    private var reportedMixedKinds = false

    /// Reused for every attribute list, so scanning allocates only once.
    private var attributes: [HLSRawAttribute] = []

    init(configuration: HLSParser.Configuration) {
        throwsOnViolation = configuration.throwsOnViolation
        playlistURL = configuration.playlistURL
        importedVariables = configuration.importedVariables
    }

    mutating func parse(_ p: UnsafeBufferPointer<UInt8>) throws(HLSParseError) {
        let count = p.count
        // Typical media playlists have a line per 15-30 bytes and a segment per two lines.
        lines.reserveCapacity(count / 16 + 8)
        segments.reserveCapacity(count / 48 + 1)
        var start = 0
        if count >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF {
            try report(.byteOrderMark, 0, "the playlist starts with a UTF-8 byte order mark, which RFC 8216 forbids")
            start = 3
        }
        while start < count {
            var i = start
            var high: UInt8 = 0
            while i < count {
                let byte = p[i]
                if byte == 0x0A || byte == 0x0D { break }
                high |= byte
                i += 1
            }
            let lineEnd = i
            if i < count {
                i += (p[i] == 0x0D && i + 1 < count && p[i + 1] == 0x0A) ? 2 : 1
            }
            try line(p, start, lineEnd, nonASCII: high >= 0x80)
            start = i
        }
        try finish()
    }

    // MARK: - Lines

    private mutating func line(
        _ p: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ lineEnd: Int, nonASCII: Bool
    ) throws(HLSParseError) {
        let index = lines.count
        var end = lineEnd
        while end > lineStart, HLSBytes.isSpace(p[end - 1]) { end -= 1 }
        var content = lineStart
        while content < end, HLSBytes.isSpace(p[content]) { content += 1 }
        var record = HLSLineRecord(
            lineStart: lineStart, contentStart: content, nameEnd: content, valueStart: end, end: end,
            kind: .blank, tag: .unknown, uriRole: .none)

        if nonASCII, !HLSBytes.isValidUTF8(p, lineStart, end) {
            try report(.invalidUTF8, index, "the line is not valid UTF-8")
        }
        if content == end {
            lines.append(record)
        } else if p[content] == HLSBytes.hash {
            if end - content >= 4, p[content + 1] == 0x45, p[content + 2] == 0x58, p[content + 3] == 0x54 {
                // "#EXT": a tag. Its name ends at ':' (or at a blank, for IPTV's "#EXTM3U url-tvg=…").
                var nameEnd = content + 1
                while nameEnd < end {
                    let byte = p[nameEnd]
                    if byte == HLSBytes.colon || HLSBytes.isSpace(byte) { break }
                    nameEnd += 1
                }
                record.kind = .tag
                record.nameEnd = nameEnd
                record.valueStart = nameEnd < end ? nameEnd + 1 : end
                record.tag = HLSTagID.lookup(p, content + 1, nameEnd)
            } else {
                record.kind = .comment
            }
            lines.append(record)
        } else {
            record.kind = .uri
            lines.append(record)
        }

        if index == 0, record.tag != .extM3U {
            try report(
                .missingHeader, 0, "the first line must be #EXTM3U, found '\(HLSBytes.snippet(p, lineStart, end))'")
        }
        switch record.kind {
        case .tag where record.tag != .unknown: try tag(p, index, record)
        case .uri: try uriLine(p, index, content, end)
        default: break
        }
    }

    private mutating func uriLine(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ lo: Int, _ hi: Int
    ) throws(HLSParseError) {
        var substituted: String?
        if let result = HLSBytes.substituteVariables(p, lo, hi, variables) {
            if let undefined = result.undefined {
                try report(
                    .undefinedVariable, index, "variable {$\(undefined)} in the URI is not defined before this line")
            }
            substituted = result.text
        }
        if pendingStreamInf >= 0 {
            variants.append(HLSVariantRecord(tagLine: pendingStreamInf, uriLine: index))
            lines[index].uriRole = .variant
            pendingStreamInf = -1
        } else if pendingExtInf >= 0 {
            try finishSegment(p, index, lo, hi, substituted)
            lines[index].uriRole = .segment
        } else {
            lines[index].uriRole = .orphan
            try report(
                .uriWithoutTag, index,
                "the URI line '\(HLSBytes.snippet(p, lo, hi))' follows neither #EXTINF nor #EXT-X-STREAM-INF")
        }
    }

    private mutating func finishSegment(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ lo: Int, _ hi: Int, _ substituted: String?
    ) throws(HLSParseError) {
        var length = -1
        var offset = -1
        if let range = pendingByteRange {
            let uri = substituted ?? HLSBytes.string(p, lo, hi)
            var start = range.offset ?? byteRangeEnds[uri]
            if start == nil {
                try report(
                    .invalidByteRange, pendingByteRangeLine,
                    "#EXT-X-BYTERANGE:\(range.length) has no offset, and no earlier segment is a sub-range of '\(uri)'")
                start = 0
            }
            let (end, overflow) = (start ?? 0).addingReportingOverflow(range.length)
            if overflow {
                // Only reachable by chaining offsets: each range alone was checked by HLSBytes.byteRange.
                try report(
                    .invalidByteRange, pendingByteRangeLine,
                    "#EXT-X-BYTERANGE:\(range.length) continues '\(uri)' past the largest possible offset")
                byteRangeEnds[uri] = nil
            } else {
                length = range.length
                offset = start ?? 0
                byteRangeEnds[uri] = end
            }
        }
        if keysChanged {
            keysChanged = false
            if currentKeys.isEmpty {
                currentKeySet = -1
            } else {
                keySets.append(currentKeys.map(\.line))
                currentKeySet = keySets.count - 1
            }
        }
        if pendingDiscontinuity { discontinuitySequence += 1 }
        segments.append(
            HLSSegmentRecord(
                uriLine: index, firstLine: segmentFirstLine, extInfLine: pendingExtInf, duration: pendingDuration,
                byteRangeLength: length, byteRangeOffset: offset, keySet: currentKeySet, mapLine: currentMap,
                programDateTimeLine: pendingProgramDateTime, discontinuitySequence: discontinuitySequence,
                sequenceOffset: segments.count + skippedSoFar, isDiscontinuity: pendingDiscontinuity, isGap: pendingGap)
        )
        pendingExtInf = -1
        pendingByteRange = nil
        pendingDiscontinuity = false
        pendingGap = false
        pendingProgramDateTime = -1
        segmentFirstLine = index + 1
    }

    private mutating func finish() throws(HLSParseError) {
        if lines.isEmpty {
            try report(.missingHeader, 0, "the playlist is empty; it must start with #EXTM3U")
        }
        if pendingStreamInf >= 0 {
            try report(.missingURI, pendingStreamInf, "#EXT-X-STREAM-INF is not followed by a URI line")
        }
        if pendingExtInf >= 0 {
            try report(.missingURI, pendingExtInf, "#EXTINF is not followed by a URI line")
        }
        header.isMaster = firstMasterLine >= 0 && segments.isEmpty
    }

    // MARK: - Tags

    private mutating func tag(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ record: HLSLineRecord
    ) throws(HLSParseError) {
        let id = record.tag
        // Blanks before a value ("#EXTINF: 10,") change no meaning; real playlists have them.
        var lo = record.valueStart
        let hi = record.end
        while lo < hi, HLSBytes.isSpace(p[lo]) { lo += 1 }
        if id == .extInf {
            // Every other line of a media playlist: skip the generic path.
            if firstMediaLine < 0 { firstMediaLine = index }
            if firstMasterLine >= 0 { try reportMixedKinds(p, index, other: firstMasterLine, "media", "master") }
            try extInf(p, index, lo, hi)
            return
        }
        let spec = id.spec
        let value = { HLSBytes.snippet(p, lo, hi) }

        switch spec.scope {
        case .master:
            if firstMasterLine < 0 { firstMasterLine = index }
            if firstMediaLine >= 0 { try reportMixedKinds(p, index, other: firstMediaLine, "master", "media") }
        case .media:
            if firstMediaLine < 0 { firstMediaLine = index }
            if firstMasterLine >= 0 { try reportMixedKinds(p, index, other: firstMasterLine, "media", "master") }
        case .any:
            break
        }
        if spec.single {
            let bit: UInt64 = 1 << UInt64(id.rawValue)
            if seenOnce & bit != 0 {
                try report(.duplicateTag, index, "#\(spec.name) may appear only once in a playlist")
            }
            seenOnce |= bit
        }

        var integer: Int?
        switch spec.value {
        case .none:
            if record.hasValue {
                try report(.invalidTagValue, index, "#\(spec.name) takes no value, found '\(value())'")
            }
        case .header:
            // Only the first line must be #EXTM3U; a repeat (as in playlists joined by hand) is harmless.
            break
        case .integer:
            integer = HLSBytes.decimalInteger(p, lo, hi)
            if integer == nil {
                try report(.invalidTagValue, index, "#\(spec.name) must be a decimal integer, found '\(value())'")
            } else if let parsed = integer, parsed > HLSBytes.largestSequenceNumber {
                // Sequence numbers are added to segment counts later; a bound here keeps every sum in range.
                integer = nil
                try report(
                    .invalidTagValue, index,
                    "#\(spec.name) is larger than \(HLSBytes.largestSequenceNumber), found '\(value())'")
            }
        case .attributes:
            try scanAttributes(p, index, spec, lo, hi)
        case .extInf, .byteRange, .playlistType, .text:
            break
        }

        switch id {
        case .extInf:
            try extInf(p, index, lo, hi)
        case .byteRange:
            guard let range = HLSBytes.byteRange(p, lo, hi) else {
                try report(.invalidTagValue, index, "#EXT-X-BYTERANGE must be <length>[@<offset>], found '\(value())'")
                break
            }
            if pendingByteRange != nil {
                try report(
                    .duplicateTag, index,
                    "a second #EXT-X-BYTERANGE for one segment (the first is on line \(pendingByteRangeLine + 1))")
            }
            pendingByteRange = range
            pendingByteRangeLine = index
        case .discontinuity:
            pendingDiscontinuity = true
        case .gap:
            pendingGap = true
        case .programDateTime:
            pendingProgramDateTime = index
        case .version:
            header.version = integer
        case .targetDuration:
            header.targetDuration = integer
        case .mediaSequence:
            try requireBeforeFirstSegment(index, spec)
            header.mediaSequence = integer
        case .discontinuitySequence:
            try requireBeforeFirstSegment(index, spec)
            header.discontinuitySequence = integer
            discontinuitySequence = integer ?? 0
        case .endList:
            header.hasEndList = true
        case .iFramesOnly:
            header.iFramesOnly = true
        case .independentSegments:
            header.independentSegments = true
        case .playlistType:
            if HLSBytes.equals(p, lo, hi, HLSAttributeName.vod) {
                header.playlistType = .vod
            } else if HLSBytes.equals(p, lo, hi, HLSAttributeName.event) {
                header.playlistType = .event
            } else {
                try report(.invalidTagValue, index, "#EXT-X-PLAYLIST-TYPE must be VOD or EVENT, found '\(value())'")
            }
        case .key, .sessionKey:
            try key(p, index, id)
        case .map:
            currentMap = index
        case .part:
            try part(p, index)
        case .partInf:
            if let target = attribute(HLSAttributeName.partTarget, p) {
                header.partTarget = HLSBytes.decimalFloat(p, target.valueStart, target.valueEnd, signed: false)
            }
        case .serverControl:
            header.serverControlLine = index
        case .skip:
            if let skipped = attribute(HLSAttributeName.skippedSegments, p),
                let count = HLSBytes.decimalInteger(p, skipped.valueStart, skipped.valueEnd)
            {
                if count > HLSBytes.largestSequenceNumber - skippedSoFar {
                    try report(
                        .invalidTagValue, index,
                        "SKIPPED-SEGMENTS brings the skipped total past \(HLSBytes.largestSequenceNumber)")
                } else {
                    header.skippedSegments += count
                    skippedSoFar += count
                }
            }
        case .start:
            header.startLine = index
        case .streamInf:
            if pendingStreamInf >= 0 {
                try report(.missingURI, pendingStreamInf, "#EXT-X-STREAM-INF is not followed by a URI line")
            }
            pendingStreamInf = index
        case .iFrameStreamInf:
            iFrameVariantLines.append(index)
        case .media:
            renditionLines.append(index)
        case .contentSteering:
            header.contentSteeringLine = index
        case .define:
            try define(p, index)
        case .unknown, .extM3U, .dateRange, .bitrate, .preloadHint, .renditionReport, .imageStreamInf,
            .sessionData:
            break
        }
    }

    private mutating func extInf(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ lo: Int, _ hi: Int
    ) throws(HLSParseError) {
        if pendingExtInf >= 0 {
            try report(
                .misplacedTag, index,
                "#EXTINF follows the #EXTINF on line \(pendingExtInf + 1) without a URI line between them")
        }
        // The duration ends at the comma; IPTV playlists put attributes after a blank instead.
        var durationEnd = lo
        while durationEnd < hi, p[durationEnd] != HLSBytes.comma, !HLSBytes.isSpace(p[durationEnd]) {
            durationEnd += 1
        }
        var duration = 0.0
        if let parsed = HLSBytes.decimalFloat(p, lo, durationEnd, signed: true) {
            duration = parsed
            if parsed < 0 {
                try report(
                    .invalidTagValue, index,
                    """
                    #EXTINF duration \(HLSBytes.snippet(p, lo, durationEnd)) is negative (IPTV playlists use -1; \
                    HLS does not allow it)
                    """
                )
            }
        } else {
            try report(
                .invalidTagValue, index,
                "#EXTINF must start with a duration in seconds, found '\(HLSBytes.snippet(p, lo, hi))'")
        }
        pendingExtInf = index
        pendingDuration = duration
    }

    private mutating func key(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ id: HLSTagID
    ) throws(HLSParseError) {
        guard let method = attribute(HLSAttributeName.method, p) else { return }
        let isNone = HLSBytes.equals(p, method.valueStart, method.valueEnd, HLSAttributeName.none)
        if id == .sessionKey {
            if isNone {
                try report(.invalidAttributeValue, index, "#EXT-X-SESSION-KEY may not have METHOD=NONE")
            } else if attribute(HLSAttributeName.uri, p) == nil {
                try report(.missingAttribute, index, "#EXT-X-SESSION-KEY needs a URI attribute")
            }
            sessionKeyLines.append(index)
            return
        }
        if isNone {
            currentKeys.removeAll()
        } else {
            if attribute(HLSAttributeName.uri, p) == nil {
                try report(
                    .missingAttribute, index,
                    """
                    #EXT-X-KEY with METHOD=\(HLSBytes.snippet(p, method.valueStart, method.valueEnd)) needs a URI \
                    attribute
                    """
                )
            }
            // A key replaces the one of the same KEYFORMAT; keys of other formats stay in effect.
            let format = attribute(HLSAttributeName.keyFormat, p).map { stringValue($0, p) } ?? "identity"
            currentKeys.removeAll { $0.format == format }
            currentKeys.append((index, format))
        }
        keysChanged = true
    }

    private mutating func part(_ p: UnsafeBufferPointer<UInt8>, _ index: Int) throws(HLSParseError) {
        var duration = 0.0
        if let attribute = attribute(HLSAttributeName.duration, p) {
            duration = HLSBytes.decimalFloat(p, attribute.valueStart, attribute.valueEnd, signed: false) ?? 0
        }
        var length = -1
        var offset = -1
        if let byteRange = attribute(HLSAttributeName.byteRange, p), let uri = attribute(HLSAttributeName.uri, p) {
            var text = stringValue(byteRange, p)
            if let range = text.withUTF8({ HLSBytes.byteRange($0, 0, $0.count) }) {
                let key = stringValue(uri, p)
                var start = range.offset ?? partByteRangeEnds[key]
                if start == nil {
                    try report(
                        .invalidByteRange, index,
                        "BYTERANGE=\"\(range.length)\" has no offset, and no earlier part is a sub-range of '\(key)'")
                    start = 0
                }
                let (end, overflow) = (start ?? 0).addingReportingOverflow(range.length)
                if overflow {
                    try report(
                        .invalidByteRange, index,
                        "BYTERANGE=\"\(range.length)\" continues '\(key)' past the largest possible offset")
                    partByteRangeEnds[key] = nil
                } else {
                    length = range.length
                    offset = start ?? 0
                    partByteRangeEnds[key] = end
                }
            }
        }
        parts.append(
            HLSPartRecord(
                line: index, segmentIndex: segments.count, duration: duration, byteRangeLength: length,
                byteRangeOffset: offset))
    }

    private mutating func define(_ p: UnsafeBufferPointer<UInt8>, _ index: Int) throws(HLSParseError) {
        if let name = attribute(HLSAttributeName.name, p) {
            let nameText = HLSBytes.string(p, name.valueStart, name.valueEnd)
            guard let value = attribute(HLSAttributeName.value, p) else {
                try report(.missingAttribute, index, "#EXT-X-DEFINE:NAME=\"\(nameText)\" needs a VALUE attribute")
                return
            }
            var i = name.valueStart
            while i < name.valueEnd, HLSBytes.isVariableNameByte(p[i]) { i += 1 }
            if i < name.valueEnd || name.valueStart == name.valueEnd {
                try report(
                    .invalidAttributeValue, index,
                    "variable name '\(nameText)' may only contain letters, digits, '-' and '_'")
            }
            try defineVariable(nameText, stringValue(value, p), index)
        } else if let imported = attribute(HLSAttributeName.importName, p) {
            let name = HLSBytes.string(p, imported.valueStart, imported.valueEnd)
            guard let value = importedVariables[name] else {
                try report(
                    .undefinedVariable, index,
                    """
                    #EXT-X-DEFINE:IMPORT=\"\(name)\" needs the master playlist's variables, and '\(name)' is not \
                    among them
                    """
                )
                return
            }
            try defineVariable(name, value, index)
        } else if let parameter = attribute(HLSAttributeName.queryParameter, p) {
            let name = HLSBytes.string(p, parameter.valueStart, parameter.valueEnd)
            let query = playlistURL.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems }
            guard let value = query?.first(where: { $0.name == name })?.value else {
                try report(
                    .undefinedVariable, index,
                    "#EXT-X-DEFINE:QUERYPARAM=\"\(name)\" is not a query parameter of the playlist URL")
                return
            }
            try defineVariable(name, value, index)
        } else {
            try report(.missingAttribute, index, "#EXT-X-DEFINE needs a NAME, IMPORT or QUERYPARAM attribute")
        }
    }

    private mutating func defineVariable(_ name: String, _ value: String, _ index: Int) throws(HLSParseError) {
        guard variables[name] == nil else {
            try report(.duplicateVariable, index, "variable '\(name)' is defined twice")
            return
        }
        variables[name] = value
    }

    private mutating func requireBeforeFirstSegment(_ index: Int, _ spec: HLSTagSpec) throws(HLSParseError) {
        if !segments.isEmpty || pendingExtInf >= 0 {
            try report(.misplacedTag, index, "#\(spec.name) must appear before the first media segment")
        }
    }

    private mutating func reportMixedKinds(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, other: Int, _ kind: String, _ otherKind: String
    ) throws(HLSParseError) {
        guard !reportedMixedKinds else { return }
        reportedMixedKinds = true
        let name = { (line: HLSLineRecord) in HLSBytes.string(p, line.contentStart + 1, line.nameEnd) }
        try report(
            .mixedPlaylistKinds, index,
            """
            #\(name(lines[index])) is a \(kind)-playlist tag, but line \(other + 1) has the \(otherKind)-playlist \
            tag #\(name(lines[other]))
            """
        )
    }

    // MARK: - Attributes

    /// Scans an attribute list into `attributes` and checks it against the tag's specification.
    private mutating func scanAttributes(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ spec: HLSTagSpec, _ lo: Int, _ hi: Int
    ) throws(HLSParseError) {
        if let problem = HLSAttributeScanner.scan(p, lo, hi, into: &attributes) {
            try report(.invalidAttributeList, index, "#\(spec.name): \(problem)")
        }
        for k in attributes.indices {
            let attribute = attributes[k]
            for earlier in 0..<k
            where HLSBytes.equals(
                p, attribute.nameStart, attribute.nameEnd,
                attributes[earlier].nameStart, attributes[earlier].nameEnd)
            {
                try report(
                    .duplicateAttribute, index,
                    """
                    #\(spec.name) has the attribute \(HLSBytes.string(p, attribute.nameStart, attribute.nameEnd)) \
                    twice
                    """
                )
                break
            }
            let type = spec.attributeType(p, attribute.nameStart, attribute.nameEnd)
            try checkAttribute(p, index, spec, attribute, type)
        }
        for required in spec.required
        where !attributes.contains(where: { HLSBytes.equals(p, $0.nameStart, $0.nameEnd, required) }) {
            try report(
                .missingAttribute, index,
                "#\(spec.name) needs a \(String(decoding: required, as: UTF8.self)) attribute")
        }
    }

    private mutating func checkAttribute(
        _ p: UnsafeBufferPointer<UInt8>, _ index: Int, _ spec: HLSTagSpec, _ attribute: HLSRawAttribute,
        _ type: HLSTagSpec.AttributeType?
    ) throws(HLSParseError) {
        let lo = attribute.valueStart
        let hi = attribute.valueEnd
        let name = { HLSBytes.string(p, attribute.nameStart, attribute.nameEnd) }
        // Variable references may appear in quoted strings and hexadecimal sequences; the value is
        // checked after substitution.
        var substituted: String?
        if attribute.isQuoted || type == .hex,
            let result = HLSBytes.substituteVariables(p, lo, hi, variables)
        {
            if let undefined = result.undefined {
                try report(
                    .undefinedVariable, index,
                    "variable {$\(undefined)} in \(name()) of #\(spec.name) is not defined before this line")
            }
            substituted = result.text
        }
        guard let type else { return }
        let valid: Bool
        if var text = substituted {
            valid = text.withUTF8 { HLSParseRun.isValid(type, attribute.isQuoted, $0, 0, $0.count) }
        } else {
            valid = HLSParseRun.isValid(type, attribute.isQuoted, p, lo, hi)
        }
        if !valid {
            let written = attribute.isQuoted ? "\"\(HLSBytes.snippet(p, lo, hi))\"" : HLSBytes.snippet(p, lo, hi)
            try report(
                .invalidAttributeValue, index,
                "\(name()) of #\(spec.name) must be \(HLSParseRun.typeDescription(type)), found \(written)")
        }
    }

    private static func isValid(
        _ type: HLSTagSpec.AttributeType, _ isQuoted: Bool, _ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int
    ) -> Bool {
        switch type {
        case .quoted: isQuoted
        case .integer: !isQuoted && HLSBytes.decimalInteger(p, lo, hi) != nil
        case .float: !isQuoted && HLSBytes.decimalFloat(p, lo, hi, signed: false) != nil
        case .signedFloat: !isQuoted && HLSBytes.decimalFloat(p, lo, hi, signed: true) != nil
        case .hex: !isQuoted && HLSBytes.isHexadecimal(p, lo, hi)
        case .resolution: !isQuoted && HLSBytes.resolution(p, lo, hi) != nil
        case .enumerated: !isQuoted
        case .quotedByteRange: isQuoted && HLSBytes.byteRange(p, lo, hi) != nil
        case .quotedOrNone: isQuoted || HLSBytes.equals(p, lo, hi, HLSAttributeName.none)
        }
    }

    private static func typeDescription(_ type: HLSTagSpec.AttributeType) -> String {
        switch type {
        case .quoted: "a quoted string"
        case .integer: "a decimal integer"
        case .float: "a non-negative decimal number"
        case .signedFloat: "a decimal number"
        case .hex: "a hexadecimal sequence (0x…)"
        case .resolution: "an unquoted resolution (WIDTHxHEIGHT)"
        case .enumerated: "an unquoted enumerated string"
        case .quotedByteRange: "a quoted byte range (\"<length>[@<offset>]\")"
        case .quotedOrNone: "a quoted string or NONE"
        }
    }

    private func attribute(_ name: [UInt8], _ p: UnsafeBufferPointer<UInt8>) -> HLSRawAttribute? {
        attributes.first { HLSBytes.equals(p, $0.nameStart, $0.nameEnd, name) }
    }

    /// An attribute's value as text, with variables applied.
    private func stringValue(_ attribute: HLSRawAttribute, _ p: UnsafeBufferPointer<UInt8>) -> String {
        HLSBytes.substituteVariables(p, attribute.valueStart, attribute.valueEnd, variables)?.text
            ?? HLSBytes.string(p, attribute.valueStart, attribute.valueEnd)
    }

    private mutating func report(
        _ kind: HLSParseError.Kind, _ index: Int, _ message: String
    ) throws(HLSParseError) {
        let error = HLSParseError(kind, line: index + 1, message)
        if throwsOnViolation { throw error }
        warnings.append(error)
    }
}
