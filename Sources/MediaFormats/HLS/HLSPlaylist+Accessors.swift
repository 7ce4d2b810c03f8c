import Foundation

extension HLSPlaylist {
    /// `#EXT-X-START`: where playback should begin.
    public struct Start: Sendable, Hashable {
        /// Seconds from the start of the playlist, or from its end when negative.
        public var timeOffset: Double
        public var isPrecise: Bool

        public init(timeOffset: Double, isPrecise: Bool) {
            self.timeOffset = timeOffset
            self.isPrecise = isPrecise
        }
    }

    /// `#EXT-X-SERVER-CONTROL`: what the server supports for low-latency and delta updates.
    public struct ServerControl: Sendable, Hashable {
        public var canBlockReload: Bool
        public var canSkipUntil: Double?
        public var canSkipDateRanges: Bool
        public var holdBack: Double?
        public var partHoldBack: Double?

        public init(
            canBlockReload: Bool, canSkipUntil: Double?, canSkipDateRanges: Bool, holdBack: Double?,
            partHoldBack: Double?
        ) {
            self.canBlockReload = canBlockReload
            self.canSkipUntil = canSkipUntil
            self.canSkipDateRanges = canSkipDateRanges
            self.holdBack = holdBack
            self.partHoldBack = partHoldBack
        }
    }

    // MARK: - Playlist-wide values

    /// Whether this is a master (multivariant) playlist: it has variant or rendition tags and no
    /// media segments.
    public var isMaster: Bool { header.isMaster }

    /// `#EXT-X-VERSION`.
    public var version: Int? { header.version }

    /// `#EXT-X-TARGETDURATION` in seconds.
    public var targetDuration: Int? { header.targetDuration }

    /// `#EXT-X-MEDIA-SEQUENCE`, 0 when absent (as RFC 8216 says).
    public var mediaSequence: Int { header.mediaSequence ?? 0 }

    /// `#EXT-X-DISCONTINUITY-SEQUENCE`, 0 when absent.
    public var discontinuitySequence: Int { header.discontinuitySequence ?? 0 }

    /// `#EXT-X-PLAYLIST-TYPE`.
    public var playlistType: HLSPlaylistType? { header.playlistType }

    /// Whether `#EXT-X-ENDLIST` says no more segments will be added.
    public var isEndList: Bool { header.hasEndList }

    /// Whether the media playlist can still change: not a master playlist, no `#EXT-X-ENDLIST`,
    /// and not `VOD`. A proxy must re-fetch such a playlist within half its target duration.
    public var isLive: Bool { !isMaster && !header.hasEndList && header.playlistType != .vod }

    /// `#EXT-X-I-FRAMES-ONLY`.
    public var isIFramesOnly: Bool { header.iFramesOnly }

    /// `#EXT-X-INDEPENDENT-SEGMENTS`.
    public var hasIndependentSegments: Bool { header.independentSegments }

    /// `PART-TARGET` of `#EXT-X-PART-INF`, in seconds.
    public var partTargetDuration: Double? { header.partTarget }

    /// `SKIPPED-SEGMENTS` of `#EXT-X-SKIP`: segments a delta update left out before `segments`.
    public var skippedSegments: Int { header.skippedSegments }

    /// `#EXT-X-START`.
    public var start: Start? {
        guard header.startLine >= 0 else { return nil }
        let attributes = attributeList(ofLine: header.startLine)
        guard let offset = attributes["TIME-OFFSET"]?.decimal else { return nil }
        return Start(timeOffset: offset, isPrecise: attributes["PRECISE"]?.boolean ?? false)
    }

    /// `#EXT-X-SERVER-CONTROL`.
    public var serverControl: ServerControl? {
        guard header.serverControlLine >= 0 else { return nil }
        let attributes = attributeList(ofLine: header.serverControlLine)
        return ServerControl(
            canBlockReload: attributes["CAN-BLOCK-RELOAD"]?.boolean ?? false,
            canSkipUntil: attributes["CAN-SKIP-UNTIL"]?.decimal,
            canSkipDateRanges: attributes["CAN-SKIP-DATERANGES"]?.boolean ?? false,
            holdBack: attributes["HOLD-BACK"]?.decimal,
            partHoldBack: attributes["PART-HOLD-BACK"]?.decimal)
    }

    /// Sum of the segment durations, in seconds.
    public var totalDuration: Double { segmentRecords.reduce(0) { $0 + $1.duration } }

    // MARK: - Lines and tags

    /// Every line, in order.
    public var lines: Lines { Lines(playlist: self) }

    /// Every line of the playlist, built on access from the stored text.
    public struct Lines: RandomAccessCollection, Sendable {
        let playlist: HLSPlaylist

        public var startIndex: Int { 0 }
        public var endIndex: Int { playlist.lineRecords.count }

        public subscript(position: Int) -> HLSLine {
            let record = playlist.lineRecords[position]
            return HLSLine(
                kind: record.kind, number: position + 1, text: playlist.text(record.lineStart, record.end),
                tagName: record.kind == .tag ? playlist.tagName(ofLine: position) : nil)
        }
    }

    /// Every tag, in order.
    public var tags: [HLSTag] {
        lineRecords.indices.compactMap { lineRecords[$0].kind == .tag ? tag(atLine: $0) : nil }
    }

    /// The tags called `name`, in order.
    public func tags(named name: HLSTagName) -> [HLSTag] {
        let id = HLSTagID(name: name.rawValue)
        return lineRecords.indices.compactMap { index in
            let record = lineRecords[index]
            guard record.kind == .tag, record.tag == id else { return nil }
            if id == .unknown, tagName(ofLine: index) != name { return nil }
            return tag(atLine: index)
        }
    }

    /// The first tag called `name`.
    public func firstTag(named name: HLSTagName) -> HLSTag? {
        let id = HLSTagID(name: name.rawValue)
        for index in lineRecords.indices {
            let record = lineRecords[index]
            guard record.kind == .tag, record.tag == id else { continue }
            if id == .unknown, tagName(ofLine: index) != name { continue }
            return tag(atLine: index)
        }
        return nil
    }

    // MARK: - Media playlist views

    /// The media segments, in order.
    public var segments: Segments { Segments(playlist: self) }

    /// The media segments of a playlist, built on access from the stored text so that parsing a
    /// long playlist creates none of them.
    public struct Segments: RandomAccessCollection, Sendable {
        let playlist: HLSPlaylist

        public var startIndex: Int { 0 }
        public var endIndex: Int { playlist.segmentRecords.count }

        public subscript(position: Int) -> HLSSegment { playlist.segment(at: position) }
    }

    /// The low-latency partial segments, in order.
    public var parts: [HLSPart] {
        partRecords.map { record in
            let attributes = attributeList(ofLine: record.line)
            let segmentNumber =
                record.segmentIndex < segmentRecords.count
                ? mediaSequence + segmentRecords[record.segmentIndex].sequenceOffset
                : mediaSequence + skippedSegments + segmentRecords.count
            return HLSPart(
                uri: attributes["URI"]?.text ?? "",
                duration: record.duration,
                isIndependent: attributes["INDEPENDENT"]?.boolean ?? false,
                isGap: attributes["GAP"]?.boolean ?? false,
                byteRange: record.byteRangeLength >= 0
                    ? HLSByteRange(length: record.byteRangeLength, offset: record.byteRangeOffset) : nil,
                mediaSequenceNumber: segmentNumber,
                line: record.line + 1)
        }
    }

    // MARK: - Master playlist views

    /// The variant streams (`#EXT-X-STREAM-INF`), in order.
    public var variants: [HLSVariant] {
        variantRecords.map { record in
            HLSVariant(
                attributes: attributeList(ofLine: record.tagLine), uri: uriText(ofLine: record.uriLine),
                isIFrameOnly: false, line: record.tagLine + 1, uriLine: record.uriLine + 1)
        }
    }

    /// The I-frame variant streams (`#EXT-X-I-FRAME-STREAM-INF`), in order.
    public var iFrameVariants: [HLSVariant] {
        iFrameVariantLines.map { line in
            let attributes = attributeList(ofLine: line)
            return HLSVariant(
                attributes: attributes, uri: attributes["URI"]?.text ?? "", isIFrameOnly: true,
                line: line + 1, uriLine: line + 1)
        }
    }

    /// The alternative renditions (`#EXT-X-MEDIA`), in order.
    public var renditions: [HLSRendition] {
        renditionLines.map { HLSRendition(attributes: attributeList(ofLine: $0), line: $0 + 1) }
    }

    /// The keys a master playlist announces for preloading (`#EXT-X-SESSION-KEY`).
    public var sessionKeys: [HLSKey] {
        sessionKeyLines.map { HLSKey(attributes: attributeList(ofLine: $0), line: $0 + 1) }
    }

    // MARK: - Building values from records

    func segment(at index: Int) -> HLSSegment {
        let record = segmentRecords[index]
        let keys =
            record.keySet >= 0
            ? keySets[record.keySet].map { HLSKey(attributes: attributeList(ofLine: $0), line: $0 + 1) } : []
        let map =
            record.mapLine >= 0
            ? HLSMap(attributes: attributeList(ofLine: record.mapLine), line: record.mapLine + 1) : nil
        var programDateTime: Date?
        if record.programDateTimeLine >= 0 {
            let line = lineRecords[record.programDateTimeLine]
            programDateTime = storage.withUnsafeBufferPointer { p in
                HLSDateTime.parse(UnsafeBufferPointer(rebasing: p[line.valueStart..<line.end]))
            }
        }
        return HLSSegment(
            uri: uriText(ofLine: record.uriLine),
            duration: record.duration,
            title: extInfTitle(ofLine: record.extInfLine),
            byteRange: record.byteRangeLength >= 0
                ? HLSByteRange(length: record.byteRangeLength, offset: record.byteRangeOffset) : nil,
            keys: keys,
            map: map,
            mediaSequenceNumber: mediaSequence + record.sequenceOffset,
            discontinuitySequence: record.discontinuitySequence,
            isDiscontinuity: record.isDiscontinuity,
            isGap: record.isGap,
            programDateTime: programDateTime,
            line: record.uriLine + 1,
            lines: (record.firstLine + 1)...(record.uriLine + 1))
    }

    func text(_ lo: Int, _ hi: Int) -> String {
        storage.withUnsafeBufferPointer { HLSBytes.string($0, lo, hi) }
    }

    func tagName(ofLine index: Int) -> HLSTagName {
        let record = lineRecords[index]
        if record.tag != .unknown { return HLSTagName(record.tag) }
        return HLSTagName(rawValue: text(record.contentStart + 1, record.nameEnd))
    }

    func tag(atLine index: Int) -> HLSTag {
        let record = lineRecords[index]
        let value = record.hasValue ? text(record.valueStart, record.end) : nil
        let takesAttributes = record.tag == .unknown || record.tag.spec.value == .attributes
        return HLSTag(
            name: tagName(ofLine: index), value: value, line: index + 1,
            attributes: takesAttributes && record.hasValue ? attributeList(ofLine: index) : HLSAttributeList())
    }

    /// A URI line's text with variables applied.
    func uriText(ofLine index: Int) -> String {
        let record = lineRecords[index]
        return storage.withUnsafeBufferPointer { p in
            HLSBytes.substituteVariables(p, record.contentStart, record.end, variables)?.text
                ?? HLSBytes.string(p, record.contentStart, record.end)
        }
    }

    /// The `#EXTINF` title: the text after the first comma that is not inside quotes (IPTV
    /// playlists put quoted attributes, which may hold commas, before it).
    func extInfTitle(ofLine index: Int) -> String? {
        let record = lineRecords[index]
        return storage.withUnsafeBufferPointer { p in
            var i = record.valueStart
            var inQuotes = false
            while i < record.end {
                let byte = p[i]
                if byte == HLSBytes.quote {
                    inQuotes.toggle()
                } else if byte == HLSBytes.comma, !inQuotes {
                    return HLSBytes.string(p, i + 1, record.end)
                }
                i += 1
            }
            return nil
        }
    }

    /// A line's value read as an attribute list, variables applied to quoted and hexadecimal values.
    func attributeList(ofLine index: Int) -> HLSAttributeList {
        let record = lineRecords[index]
        return storage.withUnsafeBufferPointer { p in
            var raw: [HLSRawAttribute] = []
            _ = HLSAttributeScanner.scan(p, record.valueStart, record.end, into: &raw)
            return HLSAttributeList(
                raw.map { attribute in
                    let lo = attribute.valueStart
                    let hi = attribute.valueEnd
                    let mayHoldVariables =
                        attribute.isQuoted || (hi - lo > 2 && p[lo] == 0x30 && (p[lo + 1] | 0x20) == 0x78)
                    let text =
                        (mayHoldVariables ? HLSBytes.substituteVariables(p, lo, hi, variables)?.text : nil)
                        ?? HLSBytes.string(p, lo, hi)
                    return HLSAttributeList.Attribute(
                        name: HLSBytes.string(p, attribute.nameStart, attribute.nameEnd),
                        value: HLSAttributeValue(text: text, isQuoted: attribute.isQuoted))
                })
        }
    }
}

extension HLSPlaylist {
    /// How many lines the playlist has (blank ones included): `HLSRewriter` works on ranges of them.
    public var lineCount: Int { lineRecords.count }
}

extension HLSPlaylist {
    /// The position in `segments` of the segment with media sequence number `number`, nil when
    /// the playlist has none (one that left a live playlist's window, say, or any number a
    /// hostile URL names).
    public func segmentPosition(mediaSequenceNumber number: Int) -> Int? {
        // Offsets increase along the segments (`#EXT-X-SKIP` may leave a gap): a binary search.
        let (offset, overflow) = number.subtractingReportingOverflow(mediaSequence)
        guard !overflow, offset >= 0 else { return nil }
        var low = 0
        var high = segmentRecords.count
        while low < high {
            let middle = low + (high - low) / 2
            if segmentRecords[middle].sequenceOffset < offset { low = middle + 1 } else { high = middle }
        }
        return low < segmentRecords.count && segmentRecords[low].sequenceOffset == offset ? low : nil
    }
}
