import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TunerAPI

/// A live channel as HLS with fMP4 segments, for browsers and Apple players: one ffmpeg per
/// channel reads the channel's direct session (so the provider's one connection serves it too),
/// copies the video and converts the audio to AAC (browsers play neither AC-3 nor MP2), and writes
/// a sliding window of two-second segments into a folder of its own, served as they are.
///
/// HLS players have no connection to count: a viewer is an address that asked for the playlist or
/// a segment in the last ten seconds, and the session ends when nobody has asked for a while.
public final class LiveHLSSession: Sendable {
    public let id: String
    public let channelID: Int64
    public let channelName: String
    public let startedAt = Date()
    let directory: String
    let settings: LiveSettings
    let logger: Logger
    private let state = NIOLockedValueBox(State())

    struct State {
        var seen: [String: (first: Date, last: ContinuousClock.Instant, bytes: Int64)] = [:]
        var lastRequest = ContinuousClock.now
        var upstreamMeter = LiveRateMeter()
        var downstreamMeter = LiveRateMeter()
        var ended: String?
        var stopRequested: String?
        var task: Task<Void, Never>?
    }

    /// The playlist's name: a channel's proxy link with this last component plays it as HLS.
    public static let playlistName = "live.m3u8"

    /// Whether `name` is one of the files an HLS session serves.
    public static func isFileName(_ name: some StringProtocol) -> Bool {
        name == playlistName || name == "init.mp4" || (name.hasPrefix("seg-") && name.hasSuffix(".m4s"))
    }

    /// Seconds a segment lasts; the playlist keeps six.
    static let segmentSeconds = 2
    /// How long an address counts as watching after its last request.
    static let viewerSeconds = 10.0

    init(id: String, channelID: Int64, channelName: String, directory: String, settings: LiveSettings, logger: Logger) {
        self.id = id
        self.channelID = channelID
        self.channelName = channelName
        self.directory = directory
        self.settings = settings
        var logger = logger
        logger[metadataKey: "session"] = "\(id)"
        self.logger = logger
    }

    static func arguments(directory: String) -> [String] {
        [
            "-hide_banner", "-loglevel", "warning", "-nostdin", "-analyzeduration", "1500000", "-f", "mpegts",
            "-i", "pipe:0", "-map", "0:v:0?", "-map", "0:a:0?", "-c:v", "copy", "-c:a", "aac", "-b:a", "128k",
            "-ac", "2", "-f", "hls", "-hls_time", String(segmentSeconds), "-hls_list_size", "6",
            "-hls_flags", "delete_segments+independent_segments+temp_file+omit_endlist",
            "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
            "-hls_segment_filename", directory + "/seg-%d.m4s", directory + "/live.m3u8",
        ]
    }

    /// Starts ffmpeg on `reader`'s bytes; `onEnd` runs once when the session has ended.
    func start(reader: LiveViewer, onEnd: @escaping @Sendable (LiveHLSSession) -> Void) {
        let task = Task { [self] in
            let reason: String
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                reason = try await run(reader)
            } catch {
                reason = "ffmpeg failed: \(error)"
            }
            reader.close()
            state.withLockedValue { $0.ended = $0.ended ?? reason }
            try? FileManager.default.removeItem(atPath: directory)
            logger.info("live HLS session ended", metadata: ["channel": "\(channelID)", "reason": "\(reason)"])
            onEnd(self)
        }
        state.withLockedValue { $0.task = task }
    }

    private func run(_ reader: LiveViewer) async throws -> String {
        guard let ffmpeg = LiveFFmpegUpstream.path else {
            throw LiveUpstreamError("HLS for browsers needs ffmpeg, which is not installed (apt-get install ffmpeg)")
        }
        let input = Pipe()
        let child = try FFmpegChild.start(
            ffmpeg, arguments: Self.arguments(directory: directory), input: input, output: FileHandle.nullDevice,
            logger: logger)
        defer { child.stop() }
        let descriptor = dup(input.fileHandleForWriting.fileDescriptor)
        try? input.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        guard descriptor >= 0 else { throw LiveUpstreamError("cannot write to ffmpeg") }
        let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptor(output: descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { _, outbound in
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    while let parts = await reader.next() {
                        for part in parts {
                            try await outbound.write(part)
                            self.state.withLockedValue { $0.upstreamMeter.add(part.readableBytes, at: .now) }
                        }
                    }
                    return "the channel's stream ended"
                }
                group.addTask { [self] in await watch() }
                let reason = try await group.next() ?? "stopped"
                group.cancelAll()
                return reason
            }
        }
    }

    /// Returns when nobody has asked for a while or the session was stopped.
    private func watch() async -> String {
        let idle = Duration.seconds(settings.lingerSeconds + Double(Self.segmentSeconds * 3))
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            let verdict = state.withLockedValue { state -> String? in
                if let reason = state.stopRequested { return reason }
                if state.lastRequest.duration(to: .now) >= idle { return "no requests for \(idle)" }
                return nil
            }
            if let verdict { return verdict }
        }
        return "stopped"
    }

    func stop(_ reason: String) {
        state.withLockedValue { if $0.stopRequested == nil { $0.stopRequested = reason } }
    }

    func stopAndWait(_ reason: String) async {
        stop(reason)
        await state.withLockedValue { $0.task }?.value
    }

    var hasEnded: Bool { state.withLockedValue { $0.ended != nil || $0.stopRequested != nil } }

    // MARK: - Files

    /// A file of the stream: `live.m3u8`, `init.mp4` or `seg-<n>.m4s`. The playlist is waited
    /// for (ffmpeg writes it after its first segment, a few seconds after start); nil for any
    /// other name or a segment that is gone.
    public func file(_ name: String, for address: String) async -> (data: Data, contentType: String)? {
        let contentType: String
        if name == "live.m3u8" {
            contentType = "application/vnd.apple.mpegurl"
        } else if name == "init.mp4" {
            contentType = "video/mp4"
        } else if name.hasPrefix("seg-"), name.hasSuffix(".m4s"),
            name.dropFirst(4).dropLast(4).allSatisfy({ $0.isASCII && $0.isNumber }), name.count <= 30, name.count > 8
        {
            contentType = "video/iso.segment"
        } else {
            return nil
        }
        let path = directory + "/" + name
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            touch(address, bytes: 0)
            // Chromium's player fails ("could not parse") on a live playlist of fewer than three
            // segments: it is handed out once it has three, six seconds or so after the start.
            if let data = FileManager.default.contents(atPath: path),
                name != Self.playlistName || Self.segmentCount(data) >= 3
            {
                touch(address, bytes: data.count)
                return (data, contentType)
            }
            guard name == "live.m3u8" || name == "init.mp4", ContinuousClock.now < deadline, !hasEnded else {
                return nil
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    static func segmentCount(_ playlist: Data) -> Int {
        String(decoding: playlist, as: UTF8.self).components(separatedBy: "#EXTINF").count - 1
    }

    private func touch(_ address: String, bytes: Int) {
        let now = ContinuousClock.now
        state.withLockedValue { state in
            state.lastRequest = now
            var entry = state.seen[address] ?? (Date(), now, 0)
            entry.last = now
            entry.bytes &+= Int64(bytes)
            state.seen[address] = entry
            if bytes > 0 { state.downstreamMeter.add(bytes, at: now) }
        }
    }

    var info: LiveStreamInfo {
        let now = ContinuousClock.now
        return state.withLockedValue { state in
            let viewers = state.seen.filter { $0.value.last.duration(to: now) < .seconds(Self.viewerSeconds) }
                .sorted { $0.key < $1.key }
                .map {
                    LiveViewerInfo(
                        address: $0.key, user: nil, outputProfile: nil, joinedAt: $0.value.first, bytes: $0.value.bytes)
                }
            return LiveStreamInfo(
                id: id, channelID: channelID, channelName: channelName, profile: "hls", upstreamChannelID: channelID,
                sourceID: nil, sourceName: nil, viewers: viewers,
                upstreamBytesPerSecond: state.upstreamMeter.rate(at: now),
                downstreamBytesPerSecond: state.downstreamMeter.rate(at: now),
                upstreamBytes: state.upstreamMeter.total, downstreamBytes: state.downstreamMeter.total,
                startedAt: startedAt, failovers: [], resyncs: 0, continuityErrors: 0)
        }
    }
}
