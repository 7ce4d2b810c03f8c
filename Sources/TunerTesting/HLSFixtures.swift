import Foundation

/// Small real HLS streams made with ffmpeg, for tests that play HLS through the proxy.
///
/// `prepare(in:)` generates them once per directory (a few seconds) and afterwards only checks
/// that they are there. Serve the directory with `TestOrigin.serveDirectory(_:)` and every
/// playlist is at `/static/<playlist>`, e.g. `origin.baseURL + fixtures.multiVariant.staticPath`.
///
/// What is in the directory (all VODs are 6 s of testsrc + a sine, in 2 s segments, H.264 + AAC):
/// - `vod/master.m3u8`: a multivariant playlist with two renditions, 320x180 (`vod/low/`) and
///   640x360 (`vod/high/`), MPEG-TS segments.
/// - `aes/index.m3u8`: AES-128 encrypted segments; `EXT-X-KEY` with the relative URI `key.bin`
///   (`HLSFixtures.key`) and an explicit IV (`HLSFixtures.iv`).
/// - `fmp4/index.m3u8`: fragmented MP4 segments (`.m4s`) with `EXT-X-MAP:URI="init.mp4"`.
/// - `byterange/index.m3u8`: every segment is an `EXT-X-BYTERANGE` of one `index.ts`.
/// - `altaudio/master.m3u8`: one video-only variant (`altaudio/video/`) whose sound is a separate
///   audio rendition (`#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud"`, `altaudio/audio/`), both
///   fragmented MP4 with their own `EXT-X-MAP` and the same segment file names. The audio is a
///   little shorter (5.9 s of sine), so it is exactly 3 segments whatever the AAC priming.
/// - `live/index.m3u8`: 60 s (`liveSegmentCount` segments of 2 s, continuous timestamps) that
///   `TestOrigin.serveLive(playlist:name:window:)` loops as a live stream.
public struct HLSFixtures: Sendable {
    /// Which variety of HLS a stream exercises.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Multivariant (master) playlist with two renditions of MPEG-TS segments.
        case multiVariant
        /// AES-128 encrypted MPEG-TS segments.
        case encrypted
        /// Fragmented MP4 segments with an initialization section (`EXT-X-MAP`).
        case fragmentedMP4
        /// Byte ranges (`EXT-X-BYTERANGE`) of a single MPEG-TS file.
        case byteRange
        /// A master playlist whose variant plays its audio from a separate rendition
        /// (`#EXT-X-MEDIA:TYPE=AUDIO` with a URI), fragmented MP4 in both.
        case separateAudio

        public var description: String { rawValue }
    }

    /// One generated stream.
    public struct Stream: Sendable, CustomStringConvertible {
        public let kind: Kind
        /// The top playlist, relative to the fixtures directory, e.g. `vod/master.m3u8`.
        public let playlist: String
        /// Every file of the stream (playlists, segments, keys, init sections), relative to the
        /// fixtures directory.
        public let files: [String]

        /// The playlist's path on a `TestOrigin` serving the fixtures directory: `/static/<playlist>`.
        public var staticPath: String { "/static/" + playlist }

        public var description: String { kind.rawValue }
    }

    /// The directory holding the streams.
    public let directory: String

    public let multiVariant: Stream
    public let encrypted: Stream
    public let fragmentedMP4: Stream
    public let byteRange: Stream
    public let separateAudio: Stream

    /// The media playlist whose segments `TestOrigin.serveLive` loops, relative to `directory`.
    public let liveSource: String

    /// Every VOD stream, one per `Kind`.
    public var vods: [Stream] { [multiVariant, encrypted, fragmentedMP4, byteRange, separateAudio] }

    /// The stream of one kind.
    public func stream(_ kind: Kind) -> Stream {
        switch kind {
        case .multiVariant: multiVariant
        case .encrypted: encrypted
        case .fragmentedMP4: fragmentedMP4
        case .byteRange: byteRange
        case .separateAudio: separateAudio
        }
    }

    /// The absolute path of a file given relative to `directory`.
    public func path(_ relative: String) -> String { directory + "/" + relative }

    /// The absolute path of the live source playlist, for `TestOrigin.serveLive(playlist:name:window:)`.
    public var liveSourcePath: String { path(liveSource) }

    // MARK: Constants

    /// Duration of each VOD, in seconds.
    public static let duration = 6
    /// Target and segment duration of every stream, in seconds.
    public static let segmentDuration = 2
    /// Segments of the live source (2 s each): a live stream loops after this many.
    public static let liveSegmentCount = 30
    /// The AES-128 key of the encrypted stream (served as `aes/key.bin`).
    public static let key: [UInt8] = Array("tuner-test-key16".utf8)
    /// The IV of the encrypted stream, as written in its `EXT-X-KEY`.
    public static let iv = "0x000102030405060708090a0b0c0d0e0f"

    /// Changes whenever the generated content changes, so an old cache is regenerated.
    static let formatVersion = "tuner-hls-fixtures-3"
    static let markerName = ".complete"

    // MARK: Generation

    /// The streams in `directory`, generated there first unless a previous call already did.
    /// Throws `HLSFixturesError.ffmpegMissing` when ffmpeg is not installed.
    ///
    /// Generation happens in a sibling staging directory that is renamed into place when done, so a
    /// crash never leaves a half-made set that looks complete, and concurrent callers (in this
    /// process or another) never see one either.
    public static func prepare(in directory: String) async throws -> HLSFixtures {
        var root = directory
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        return try await Generations.shared.fixtures(in: root)
    }

    /// The streams in a fixed directory under the system's temporary folder, shared by every test
    /// (and every test run) on this machine.
    public static func shared() async throws -> HLSFixtures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(formatVersion).path
        return try await prepare(in: directory)
    }

    static func layout(in directory: String) -> HLSFixtures {
        let segments = (0..<(duration / segmentDuration))
        return HLSFixtures(
            directory: directory,
            multiVariant: Stream(
                kind: .multiVariant,
                playlist: "vod/master.m3u8",
                files: ["vod/master.m3u8", "vod/low/index.m3u8", "vod/high/index.m3u8"]
                    + segments.map { "vod/low/seg\($0).ts" } + segments.map { "vod/high/seg\($0).ts" }
            ),
            encrypted: Stream(
                kind: .encrypted,
                playlist: "aes/index.m3u8",
                files: ["aes/index.m3u8", "aes/key.bin"] + segments.map { "aes/seg\($0).ts" }
            ),
            fragmentedMP4: Stream(
                kind: .fragmentedMP4,
                playlist: "fmp4/index.m3u8",
                files: ["fmp4/index.m3u8", "fmp4/init.mp4"] + segments.map { "fmp4/seg\($0).m4s" }
            ),
            byteRange: Stream(
                kind: .byteRange,
                playlist: "byterange/index.m3u8",
                files: ["byterange/index.m3u8", "byterange/index.ts"]
            ),
            separateAudio: Stream(
                kind: .separateAudio,
                playlist: "altaudio/master.m3u8",
                files: [
                    "altaudio/master.m3u8", "altaudio/video/index.m3u8", "altaudio/video/init_0.mp4",
                    "altaudio/audio/index.m3u8", "altaudio/audio/init_1.mp4",
                ]
                    + segments.map { "altaudio/video/seg\($0).m4s" } + segments.map { "altaudio/audio/seg\($0).m4s" }
            ),
            liveSource: "live/index.m3u8"
        )
    }

    /// True when `directory` holds a complete set of this format version.
    static func isComplete(_ directory: String) -> Bool {
        let marker = directory + "/" + markerName
        guard let text = try? String(contentsOfFile: marker, encoding: .utf8),
            text.trimmingCharacters(in: .whitespacesAndNewlines) == formatVersion
        else { return false }
        let fixtures = layout(in: directory)
        let files = fixtures.vods.flatMap(\.files) + [fixtures.liveSource]
        return files.allSatisfy { FileManager.default.fileExists(atPath: fixtures.path($0)) }
    }

    static func generate(in directory: String) async throws {
        guard let ffmpeg = ExternalCommand.path(of: "ffmpeg") else {
            throw HLSFixturesError.ffmpegMissing
        }
        let fileManager = FileManager.default
        let parent = (directory as NSString).deletingLastPathComponent
        try fileManager.createDirectory(atPath: parent.isEmpty ? "." : parent, withIntermediateDirectories: true)
        let staging = directory + ".staging-" + UUID().uuidString
        try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(atPath: staging) }
        for folder in ["vod", "aes", "fmp4", "byterange", "altaudio", "live"] {
            try fileManager.createDirectory(atPath: staging + "/" + folder, withIntermediateDirectories: true)
        }

        func run(_ arguments: [String]) async throws {
            let result = try await ExternalCommand.run(
                ffmpeg, ["-hide_banner", "-nostdin", "-v", "error", "-y"] + arguments,
                currentDirectory: staging, timeout: .seconds(120))
            guard result.succeeded else {
                throw HLSFixturesError.ffmpegFailed(arguments: arguments, transcript: result.transcript)
            }
        }

        func sources(size: String, seconds: Int) -> [String] {
            [
                "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25:duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)",
            ]
        }
        // Tiny and fast: ultrafast x264, low bitrates, a key frame exactly every segment.
        let video = [
            "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "baseline", "-pix_fmt", "yuv420p",
            "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
            "-force_key_frames", "expr:gte(t,n_forced*\(segmentDuration))",
        ]
        let audio = ["-c:a", "aac", "-b:a", "32k", "-ac", "1", "-ar", "44100"]
        let hls = [
            "-f", "hls", "-hls_time", String(segmentDuration), "-hls_playlist_type", "vod", "-hls_list_size", "0",
        ]
        let single = sources(size: "320x180", seconds: duration) + video + ["-b:v", "120k"] + audio + hls

        // Two renditions and a multivariant playlist.
        try await run(
            sources(size: "640x360", seconds: duration) + [
                "-filter_complex", "[0:v]split=2[a][b];[a]scale=320:180[low];[b]null[high]",
                "-map", "[low]", "-map", "1:a", "-map", "[high]", "-map", "1:a",
            ] + video + ["-b:v:0", "120k", "-b:v:1", "250k"] + audio + hls + [
                "-master_pl_name", "master.m3u8",
                "-var_stream_map", "v:0,a:0,name:low v:1,a:1,name:high",
                "-hls_segment_filename", "vod/%v/seg%d.ts",
                "vod/%v/index.m3u8",
            ])

        // AES-128 with a relative key URI and an explicit IV.
        let keyPath = staging + "/aes/key.bin"
        try Data(key).write(to: URL(fileURLWithPath: keyPath))
        let keyInfo = staging + "/aes.keyinfo"
        try "key.bin\n\(keyPath)\n\(iv.dropFirst(2))\n".write(toFile: keyInfo, atomically: true, encoding: .utf8)
        try await run(
            single + ["-hls_key_info_file", keyInfo, "-hls_segment_filename", "aes/seg%d.ts", "aes/index.m3u8"])
        try? fileManager.removeItem(atPath: keyInfo)

        // Fragmented MP4 with EXT-X-MAP.
        try await run(
            single + [
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                "-hls_segment_filename", "fmp4/seg%d.m4s", "fmp4/index.m3u8",
            ])

        // Byte ranges of one file.
        try await run(single + ["-hls_flags", "single_file", "byterange/index.m3u8"])

        // A video-only variant and its audio as a separate rendition (ffmpeg's `agroup`), fMP4.
        // The audio stops at 5.9 s so that AAC priming never spills into a fourth segment.
        try await run(
            [
                "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25:duration=\(duration)",
                "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=\(Double(duration) - 0.1)",
                "-map", "0:v", "-map", "1:a",
            ] + video + ["-b:v", "120k"] + audio + hls + [
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                "-master_pl_name", "master.m3u8",
                "-var_stream_map", "v:0,agroup:aud,name:video a:0,agroup:aud,default:yes,language:en,name:audio",
                "-hls_segment_filename", "altaudio/%v/seg%d.m4s",
                "altaudio/%v/index.m3u8",
            ])

        // The live source: one continuous encode cut into many segments.
        try await run(
            sources(size: "320x180", seconds: liveSegmentCount * segmentDuration) + video + ["-b:v", "100k"] + audio
                + hls
                + ["-hls_segment_filename", "live/seg%d.ts", "live/index.m3u8"])

        try formatVersion.write(toFile: staging + "/" + markerName, atomically: true, encoding: .utf8)
        guard isComplete(staging) else {
            throw HLSFixturesError.incompleteOutput(staging)
        }

        // Into place. rename(2) replaces an empty directory; a complete one means someone else won.
        if rename(staging, directory) != 0 {
            if isComplete(directory) { return }
            try? fileManager.removeItem(atPath: directory)
            guard rename(staging, directory) == 0 || isComplete(directory) else {
                throw HLSFixturesError.cannotMove(from: staging, to: directory, errno: errno)
            }
        }
    }
}

/// Why the HLS fixtures could not be made.
public enum HLSFixturesError: Error, CustomStringConvertible {
    /// ffmpeg is not installed.
    case ffmpegMissing
    /// An ffmpeg run failed.
    case ffmpegFailed(arguments: [String], transcript: String)
    /// ffmpeg succeeded but a file the fixtures promise is missing (an ffmpeg version that names
    /// its output differently).
    case incompleteOutput(String)
    case cannotMove(from: String, to: String, errno: Int32)

    public var description: String {
        switch self {
        case .ffmpegMissing:
            """
            ffmpeg is not installed (not found on PATH), so the HLS fixtures cannot be generated; install it with \
            `apt-get install ffmpeg`
            """
        case .ffmpegFailed(let arguments, let transcript):
            "ffmpeg failed generating HLS fixtures: ffmpeg \(arguments.joined(separator: " "))\n\(transcript)"
        case .incompleteOutput(let directory):
            "ffmpeg did not produce every expected HLS fixture file in \(directory)"
        case .cannotMove(let from, let to, let code):
            "cannot move HLS fixtures from \(from) to \(to): errno \(code)"
        }
    }
}

/// One generation per directory at a time in this process; later callers wait for it.
private actor Generations {
    static let shared = Generations()
    private var running: [String: Task<Void, any Error>] = [:]

    func fixtures(in directory: String) async throws -> HLSFixtures {
        if HLSFixtures.isComplete(directory) {
            return HLSFixtures.layout(in: directory)
        }
        let task: Task<Void, any Error>
        if let existing = running[directory] {
            task = existing
        } else {
            task = Task { try await HLSFixtures.generate(in: directory) }
            running[directory] = task
        }
        defer { running[directory] = nil }
        try await task.value
        return HLSFixtures.layout(in: directory)
    }
}
