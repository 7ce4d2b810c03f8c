/// The tags the parser knows, as a small integer so that the per-line work is a byte comparison and
/// a switch rather than a string hash.
enum HLSTagID: UInt8, Sendable, CaseIterable {
    case unknown
    case extM3U, version
    case extInf, byteRange, discontinuity, key, map, programDateTime, dateRange, gap, bitrate, part
    case targetDuration, mediaSequence, discontinuitySequence, endList, playlistType, iFramesOnly
    case partInf, serverControl, skip, preloadHint, renditionReport
    case media, streamInf, iFrameStreamInf, imageStreamInf, sessionData, sessionKey, contentSteering
    case independentSegments, start, define

    var name: String { HLSTagSpec.table[Int(rawValue)].name }

    var spec: HLSTagSpec { HLSTagSpec.table[Int(rawValue)] }

    init(name: String) {
        var name = name
        self = name.withUTF8 { p in HLSTagID.lookup(p, 0, p.count) }
    }

    /// Finds the tag whose name is `p[lo..<hi]`.
    static func lookup(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> HLSTagID {
        let length = hi - lo
        // EXTINF is every other line of a media playlist, so it skips the table.
        if length == 6, p[lo] == 0x45, p[lo + 3] == 0x49, p[lo + 4] == 0x4E, p[lo + 5] == 0x46,
            p[lo + 1] == 0x58, p[lo + 2] == 0x54
        {
            return .extInf
        }
        let table = HLSTagSpec.byLength
        guard length < table.count else { return .unknown }
        for (bytes, id) in table[length] where HLSBytes.equals(p, lo, hi, bytes) {
            return id
        }
        return .unknown
    }
}

/// What the parser needs to know about a tag: where it may appear, what its value looks like, and
/// which of its attributes are URIs.
///
/// A final class so that reading one from the table is a single reference count, not a copy of
/// its arrays.
final class HLSTagSpec: Sendable {
    enum Scope: Sendable { case master, media, any }

    enum Value: Sendable {
        case none, header, integer, extInf, byteRange, playlistType, text, attributes
    }

    /// The type RFC 8216 gives an attribute's value (section 4.2).
    enum AttributeType: Sendable {
        case quoted, integer, float, signedFloat, hex, resolution, enumerated
        /// A quoted `n[@o]` (`BYTERANGE` of `EXT-X-MAP` and `EXT-X-PART`).
        case quotedByteRange
        /// A quoted group id or the enumerated `NONE` (`CLOSED-CAPTIONS`).
        case quotedOrNone
    }

    let id: HLSTagID
    let name: String
    let scope: Scope
    let value: Value
    /// RFC 8216 says the tag MUST NOT appear more than once.
    let single: Bool
    let attributes: [(name: [UInt8], type: AttributeType)]
    let required: [[UInt8]]
    /// Attributes holding URIs, with what they point at. `EXT-X-PRELOAD-HINT` refines its kind by TYPE.
    let uriAttributes: [(name: [UInt8], kind: HLSURIKind)]

    init(
        _ id: HLSTagID, _ name: String, _ scope: Scope, _ value: Value, single: Bool = false,
        attributes: [(String, AttributeType)] = [], required: [String] = [],
        uris: [(String, HLSURIKind)] = []
    ) {
        self.id = id
        self.name = name
        self.scope = scope
        self.value = value
        self.single = single
        self.attributes = attributes.map { (Array($0.0.utf8), $0.1) }
        self.required = required.map { Array($0.utf8) }
        self.uriAttributes = uris.map { (Array($0.0.utf8), $0.1) }
    }

    func attributeType(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> AttributeType? {
        for (name, type) in attributes where HLSBytes.equals(p, lo, hi, name) {
            return type
        }
        return nil
    }

    /// Indexed by `HLSTagID.rawValue`.
    static let table: [HLSTagSpec] = {
        let variantAttributes: [(String, AttributeType)] = [
            ("BANDWIDTH", .integer), ("AVERAGE-BANDWIDTH", .integer), ("SCORE", .float),
            ("CODECS", .quoted), ("SUPPLEMENTAL-CODECS", .quoted), ("RESOLUTION", .resolution),
            ("HDCP-LEVEL", .enumerated), ("ALLOWED-CPC", .quoted), ("VIDEO-RANGE", .enumerated),
            ("REQ-VIDEO-LAYOUT", .quoted), ("STABLE-VARIANT-ID", .quoted), ("VIDEO", .quoted),
            ("PATHWAY-ID", .quoted), ("PROGRAM-ID", .integer), ("URI", .quoted),
        ]
        let keyAttributes: [(String, AttributeType)] = [
            ("METHOD", .enumerated), ("URI", .quoted), ("IV", .hex), ("KEYFORMAT", .quoted),
            ("KEYFORMATVERSIONS", .quoted),
        ]
        let specs: [HLSTagSpec] = [
            HLSTagSpec(.unknown, "", .any, .text),
            HLSTagSpec(.extM3U, "EXTM3U", .any, .header),
            HLSTagSpec(.version, "EXT-X-VERSION", .any, .integer, single: true),
            HLSTagSpec(.extInf, "EXTINF", .media, .extInf),
            HLSTagSpec(.byteRange, "EXT-X-BYTERANGE", .media, .byteRange),
            HLSTagSpec(.discontinuity, "EXT-X-DISCONTINUITY", .media, .none),
            HLSTagSpec(
                .key, "EXT-X-KEY", .media, .attributes, attributes: keyAttributes,
                required: ["METHOD"], uris: [("URI", .key)]),
            HLSTagSpec(
                .map, "EXT-X-MAP", .media, .attributes,
                attributes: [("URI", .quoted), ("BYTERANGE", .quotedByteRange)],
                required: ["URI"], uris: [("URI", .map)]),
            HLSTagSpec(.programDateTime, "EXT-X-PROGRAM-DATE-TIME", .media, .text),
            HLSTagSpec(
                .dateRange, "EXT-X-DATERANGE", .media, .attributes,
                attributes: [
                    ("ID", .quoted), ("CLASS", .quoted), ("START-DATE", .quoted),
                    ("CUE", .quoted), ("END-DATE", .quoted), ("DURATION", .float),
                    ("PLANNED-DURATION", .float), ("SCTE35-CMD", .hex),
                    ("SCTE35-OUT", .hex), ("SCTE35-IN", .hex), ("END-ON-NEXT", .enumerated),
                    ("X-ASSET-URI", .quoted), ("X-ASSET-LIST", .quoted),
                ],
                required: ["ID"], uris: [("X-ASSET-URI", .playlist), ("X-ASSET-LIST", .other)]),
            HLSTagSpec(.gap, "EXT-X-GAP", .media, .none),
            HLSTagSpec(.bitrate, "EXT-X-BITRATE", .media, .integer),
            HLSTagSpec(
                .part, "EXT-X-PART", .media, .attributes,
                attributes: [
                    ("URI", .quoted), ("DURATION", .float), ("INDEPENDENT", .enumerated),
                    ("BYTERANGE", .quotedByteRange), ("GAP", .enumerated),
                ],
                required: ["URI", "DURATION"], uris: [("URI", .part)]),
            HLSTagSpec(.targetDuration, "EXT-X-TARGETDURATION", .media, .integer, single: true),
            HLSTagSpec(.mediaSequence, "EXT-X-MEDIA-SEQUENCE", .media, .integer, single: true),
            HLSTagSpec(.discontinuitySequence, "EXT-X-DISCONTINUITY-SEQUENCE", .media, .integer, single: true),
            HLSTagSpec(.endList, "EXT-X-ENDLIST", .media, .none, single: true),
            HLSTagSpec(.playlistType, "EXT-X-PLAYLIST-TYPE", .media, .playlistType, single: true),
            HLSTagSpec(.iFramesOnly, "EXT-X-I-FRAMES-ONLY", .media, .none, single: true),
            HLSTagSpec(
                .partInf, "EXT-X-PART-INF", .media, .attributes, single: true,
                attributes: [("PART-TARGET", .float)], required: ["PART-TARGET"]),
            HLSTagSpec(
                .serverControl, "EXT-X-SERVER-CONTROL", .media, .attributes, single: true,
                attributes: [
                    ("CAN-SKIP-UNTIL", .float), ("CAN-SKIP-DATERANGES", .enumerated),
                    ("HOLD-BACK", .float), ("PART-HOLD-BACK", .float),
                    ("CAN-BLOCK-RELOAD", .enumerated),
                ]),
            HLSTagSpec(
                .skip, "EXT-X-SKIP", .media, .attributes, single: true,
                attributes: [("SKIPPED-SEGMENTS", .integer), ("RECENTLY-REMOVED-DATERANGES", .quoted)],
                required: ["SKIPPED-SEGMENTS"]),
            HLSTagSpec(
                .preloadHint, "EXT-X-PRELOAD-HINT", .media, .attributes,
                attributes: [
                    ("TYPE", .enumerated), ("URI", .quoted), ("BYTERANGE-START", .integer),
                    ("BYTERANGE-LENGTH", .integer),
                ],
                required: ["TYPE", "URI"], uris: [("URI", .other)]),
            HLSTagSpec(
                .renditionReport, "EXT-X-RENDITION-REPORT", .media, .attributes,
                attributes: [("URI", .quoted), ("LAST-MSN", .integer), ("LAST-PART", .integer)],
                required: ["URI"], uris: [("URI", .playlist)]),
            HLSTagSpec(
                .media, "EXT-X-MEDIA", .master, .attributes,
                attributes: [
                    ("TYPE", .enumerated), ("URI", .quoted), ("GROUP-ID", .quoted),
                    ("LANGUAGE", .quoted), ("ASSOC-LANGUAGE", .quoted), ("NAME", .quoted),
                    ("STABLE-RENDITION-ID", .quoted), ("DEFAULT", .enumerated),
                    ("AUTOSELECT", .enumerated), ("FORCED", .enumerated),
                    ("INSTREAM-ID", .quoted), ("BIT-DEPTH", .integer),
                    ("SAMPLE-RATE", .integer), ("CHARACTERISTICS", .quoted),
                    ("CHANNELS", .quoted),
                ],
                required: ["TYPE", "GROUP-ID", "NAME"], uris: [("URI", .playlist)]),
            HLSTagSpec(
                .streamInf, "EXT-X-STREAM-INF", .master, .attributes,
                attributes: variantAttributes + [
                    ("FRAME-RATE", .float), ("AUDIO", .quoted),
                    ("SUBTITLES", .quoted), ("CLOSED-CAPTIONS", .quotedOrNone),
                ],
                required: ["BANDWIDTH"], uris: [("URI", .playlist)]),
            HLSTagSpec(
                .iFrameStreamInf, "EXT-X-I-FRAME-STREAM-INF", .master, .attributes,
                attributes: variantAttributes, required: ["BANDWIDTH", "URI"], uris: [("URI", .playlist)]),
            HLSTagSpec(
                .imageStreamInf, "EXT-X-IMAGE-STREAM-INF", .master, .attributes,
                attributes: variantAttributes, required: ["URI"], uris: [("URI", .playlist)]),
            HLSTagSpec(
                .sessionData, "EXT-X-SESSION-DATA", .master, .attributes,
                attributes: [
                    ("DATA-ID", .quoted), ("VALUE", .quoted), ("URI", .quoted),
                    ("FORMAT", .enumerated), ("LANGUAGE", .quoted),
                ],
                required: ["DATA-ID"], uris: [("URI", .other)]),
            HLSTagSpec(
                .sessionKey, "EXT-X-SESSION-KEY", .master, .attributes, attributes: keyAttributes,
                required: ["METHOD"], uris: [("URI", .key)]),
            HLSTagSpec(
                .contentSteering, "EXT-X-CONTENT-STEERING", .master, .attributes, single: true,
                attributes: [("SERVER-URI", .quoted), ("PATHWAY-ID", .quoted)],
                required: ["SERVER-URI"], uris: [("SERVER-URI", .other)]),
            HLSTagSpec(.independentSegments, "EXT-X-INDEPENDENT-SEGMENTS", .any, .none),
            HLSTagSpec(
                .start, "EXT-X-START", .any, .attributes, single: true,
                attributes: [("TIME-OFFSET", .signedFloat), ("PRECISE", .enumerated)],
                required: ["TIME-OFFSET"]),
            HLSTagSpec(
                .define, "EXT-X-DEFINE", .any, .attributes,
                attributes: [
                    ("NAME", .quoted), ("VALUE", .quoted), ("IMPORT", .quoted),
                    ("QUERYPARAM", .quoted),
                ]),
        ]
        precondition(specs.count == HLSTagID.allCases.count)
        for (index, spec) in specs.enumerated() {
            precondition(Int(spec.id.rawValue) == index, "tag table out of order at \(spec.name)")
        }
        return specs
    }()

    /// Known names grouped by byte length, so a lookup compares only names of the right length.
    static let byLength: [[([UInt8], HLSTagID)]] = {
        var groups = [[([UInt8], HLSTagID)]](repeating: [], count: 32)
        for spec in table where spec.id != .unknown {
            let bytes = Array(spec.name.utf8)
            groups[bytes.count].append((bytes, spec.id))
        }
        return groups
    }()
}
