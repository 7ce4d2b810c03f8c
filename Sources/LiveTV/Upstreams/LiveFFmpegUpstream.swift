import Foundation
import Logging
import NIOCore
import NIOPosix

/// ffmpeg as a session's upstream: for the remux and transcode profiles, one child per session,
/// shared by its viewers and stopped with it. Its input is either the bytes of the channel's
/// direct session (written to its standard input, so the provider's one connection serves both)
/// or a URL (an HLS channel through Tuner's own proxy); its MPEG-TS output is read from its
/// standard output with backpressure. Its standard error goes to the log with the session id.
public enum LiveFFmpegUpstream {
    enum Input: Sendable {
        /// MPEG-TS handed over by `feed`, which returns nil when the input has ended.
        case pipe(LiveViewer)
        /// A URL ffmpeg opens itself (on this machine: Tuner's own proxy).
        case url(String)
    }

    /// ffmpeg on PATH, or nil.
    public static let path: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/ffmpeg" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// The arguments for `profile` reading `input` (`pipe:0` or a URL); `size` is the transcode
    /// profile's, when the player named one (else the user's transcode arguments apply).
    static func arguments(
        profile: StreamProfile, size: TranscodeSize? = nil, input: String, settings: LiveSettings
    ) -> [String] {
        // A second of probing is enough for a live stream that starts at a keyframe (the default,
        // five seconds, would hold the first picture back that long).
        var arguments = ["-hide_banner", "-loglevel", "warning", "-nostdin", "-analyzeduration", "1500000"]
        if input == "pipe:0" { arguments += ["-f", "mpegts"] }
        arguments += ["-i", input]
        switch profile {
        case .transcode: arguments += size?.ffmpegArguments ?? settings.transcodeArguments
        case .direct, .remux: arguments += ["-map", "0:v?", "-map", "0:a?", "-c", "copy"]
        }
        return arguments + ["-f", "mpegts", "-mpegts_flags", "+resend_headers", "pipe:1"]
    }

    static func make(
        channelID: Int64, sourceID: Int64?, sourceName: String?, profile: StreamProfile, size: TranscodeSize? = nil,
        input: @escaping @Sendable () async throws -> Input, settings: LiveSettings, logger: Logger
    ) -> LiveUpstream {
        let name = [profile.rawValue, size?.rawValue].compactMap { $0 }.joined(separator: " ")
        return LiveUpstream(
            channelID: channelID, sourceID: sourceID, sourceName: sourceName, label: "ffmpeg (\(name))"
        ) { deliver in
            guard let ffmpeg = path else {
                throw LiveUpstreamError(
                    "the \(profile.rawValue) profile needs ffmpeg, which is not installed (apt-get install ffmpeg)")
            }
            let source = try await input()
            defer { if case .pipe(let viewer) = source { viewer.close() } }
            let inputName: String
            switch source {
            case .pipe: inputName = "pipe:0"
            case .url(let url): inputName = url
            }
            try await run(
                ffmpeg, arguments: arguments(profile: profile, size: size, input: inputName, settings: settings),
                source: source, deliver: deliver, logger: logger)
        }
    }

    private static func run(
        _ ffmpeg: String, arguments: [String], source: Input, deliver: @escaping @Sendable (ByteBuffer) -> Void,
        logger: Logger
    ) async throws {
        let feed: Feed?
        if case .pipe(let viewer) = source {
            // The direct session's bytes into ffmpeg; its end closes ffmpeg's input.
            feed = { write in
                while let parts = await viewer.next() {
                    for part in parts { try await write(part) }
                }
            }
        } else {
            feed = nil
        }
        let status = try await pipe(ffmpeg, arguments: arguments, feed: feed, deliver: deliver, logger: logger)
        throw LiveUpstreamError("ffmpeg stopped (status \(status))")
    }

    /// Writes MPEG-TS into ffmpeg: returns when the input has ended.
    typealias Feed = @Sendable (_ write: (ByteBuffer) async throws -> Void) async throws -> Void

    /// Runs ffmpeg with `arguments`, its standard input written by `feed` (nil: ffmpeg opens its
    /// input itself) and its standard output handed to `deliver` with backpressure; returns when
    /// its output ends (and stops it whenever this returns or throws), with ffmpeg's exit status
    /// (-1 while it still runs).
    @discardableResult
    static func pipe(
        _ ffmpeg: String, arguments: [String], feed: Feed?, deliver: (ByteBuffer) async throws -> Void, logger: Logger
    ) async throws -> Int32 {
        let output = Pipe()
        let input = Pipe()
        let child = try FFmpegChild.start(
            ffmpeg, arguments: arguments, input: feed != nil ? input : FileHandle.nullDevice, output: output,
            logger: logger)
        defer { child.stop() }
        // NIO takes its own descriptors: Foundation closes the pipes' when the handles go.
        let readDescriptor = dup(output.fileHandleForReading.fileDescriptor)
        try? output.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        guard readDescriptor >= 0 else { throw LiveUpstreamError("cannot read ffmpeg's output") }
        guard let feed else {
            try? input.fileHandleForReading.close()
            try? input.fileHandleForWriting.close()
            let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .takingOwnershipOfDescriptor(input: readDescriptor) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await channel.executeThenClose { inbound, _ in
                for try await chunk in inbound { try await deliver(chunk) }
            }
            return child.status
        }
        let writeDescriptor = dup(input.fileHandleForWriting.fileDescriptor)
        try? input.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        guard writeDescriptor >= 0 else {
            close(readDescriptor)
            throw LiveUpstreamError("cannot write to ffmpeg")
        }
        let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptors(input: readDescriptor, output: writeDescriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await feed { try await outbound.write($0) }
                    outbound.finish()
                }
                for try await chunk in inbound { try await deliver(chunk) }
                group.cancelAll()
            }
        }
        return child.status
    }
}

/// An ffmpeg child process whose standard error goes to the log line by line (with the
/// session's metadata), stopped and reaped by ``stop()``.
struct FFmpegChild {
    let process: Process
    private let errors: Pipe

    /// Starts `ffmpeg` with `input` and `output` as its standard input and output (a `Pipe` or a
    /// `FileHandle`).
    static func start(_ ffmpeg: String, arguments: [String], input: Any, output: Any, logger: Logger) throws
        -> FFmpegChild
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(20) {
                logger.warning("ffmpeg", metadata: ["line": "\(line.prefix(300))"])
            }
        }
        try process.run()
        return FFmpegChild(process: process, errors: errors)
    }

    /// Its exit status, or -1 while it runs.
    var status: Int32 { process.isRunning ? -1 : process.terminationStatus }

    /// Terminates ffmpeg if it still runs and waits for it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        errors.fileHandleForReading.readabilityHandler = nil
    }
}
