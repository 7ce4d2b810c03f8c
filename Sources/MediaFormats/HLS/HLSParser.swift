import Foundation

/// Parses HLS playlist text (RFC 8216, its low-latency, variable and content-steering additions)
/// into an `HLSPlaylist`, keeping every line so that the playlist serializes back to its text.
///
/// What it checks: the `#EXTM3U` header, the syntax of every known tag's value and attribute
/// list (including attribute types and required attributes), tags that may appear only once,
/// the order rules that change meaning (`#EXT-X-MEDIA-SEQUENCE` before the first segment, a URI
/// line after each `#EXTINF` and `#EXT-X-STREAM-INF`), master and media tags not mixed, variable
/// references and byte ranges that can be resolved, and UTF-8.
///
/// What it deliberately accepts, because real playlists have it and the meaning stays clear:
/// blanks before a tag value and after commas in attribute lists, trailing commas, `#EXTINF`
/// without a comma, a repeated `#EXTM3U`, lowercase hexadecimal digits, unknown tags and
/// attributes, dates it cannot read (their accessor returns nil), and IPTV extras (`#EXTM3U
/// url-tvg=…`, attributes after the `#EXTINF` duration). It does not require the tags a complete
/// playlist needs (such as `#EXT-X-TARGETDURATION`) nor check version compatibility, so that
/// playlists cut from a live stream or from a test still parse.
///
/// Parsing works on the UTF-8 bytes in one pass and creates no per-line strings: a
/// 40,000-segment playlist parses in a few milliseconds.
public struct HLSParser: Sendable {
    /// How the parser treats violations, and the context that variable imports need.
    public struct Configuration: Sendable {
        /// When true, the first violation is thrown. When false, violations are collected in
        /// `HLSPlaylist.warnings` and parsing continues with a best guess, so a proxy can still
        /// rewrite a playlist that a player would tolerate.
        public var throwsOnViolation: Bool
        /// The playlist's own URL; its query supplies `#EXT-X-DEFINE:QUERYPARAM=` values.
        public var playlistURL: URL?
        /// Variables of the master playlist that `#EXT-X-DEFINE:IMPORT=` may import.
        public var importedVariables: [String: String]

        public init(
            throwsOnViolation: Bool = true, playlistURL: URL? = nil, importedVariables: [String: String] = [:]
        ) {
            self.throwsOnViolation = throwsOnViolation
            self.playlistURL = playlistURL
            self.importedVariables = importedVariables
        }

        /// Throws the first violation.
        public static var strict: Configuration { Configuration() }

        /// Collects violations as warnings; never throws.
        public static var lenient: Configuration { Configuration(throwsOnViolation: false) }
    }

    public var configuration: Configuration

    public init(configuration: Configuration = .strict) {
        self.configuration = configuration
    }

    /// Parses playlist text.
    public func parse(_ text: String) throws(HLSParseError) -> HLSPlaylist {
        try parse(Array(text.utf8))
    }

    /// Parses UTF-8 bytes, with LF, CRLF or CR line endings.
    public func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(HLSParseError) -> HLSPlaylist {
        let storage = Array(bytes)
        guard storage.count < Int(Int32.max) else {
            throw HLSParseError(
                .tooLarge, line: 1, "the playlist is \(storage.count) bytes; at most 2 GiB can be parsed")
        }
        var run = HLSParseRun(configuration: configuration)
        try storage.withUnsafeBufferPointer { (p) throws(HLSParseError) in
            try run.parse(p)
        }
        return HLSPlaylist(
            storage: storage,
            lineRecords: run.lines,
            segmentRecords: run.segments,
            variantRecords: run.variants,
            iFrameVariantLines: run.iFrameVariantLines,
            renditionLines: run.renditionLines,
            sessionKeyLines: run.sessionKeyLines,
            partRecords: run.parts,
            keySets: run.keySets,
            header: run.header,
            variables: run.variables,
            warnings: run.warnings
        )
    }
}
