import Foundation
import Logging
import MediaFormats
import NIOCore
import Synchronization

/// The time-shift window of one channel: what its live session received, on disk as MPEG-TS
/// segments that each start at a keyframe behind the newest PAT and PMT (so each decodes on its
/// own), named by when their first byte arrived, trimmed to a duration and a byte cap.
///
/// The session hands it every packet it appends to its ring (``receive(_:marks:at:)``) on its
/// reading path; cutting and every file operation run in order on a queue of the window's own,
/// never on the cooperative pool. Readers (``TimeshiftReader``, playlists) see the segments on
/// disk through ``segments``. The files are not synced: a crash may lose the newest seconds of
/// the window, which is a convenience, not a recording.
public final class TimeshiftWindow: Sendable {
    public let channelID: Int64
    let directory: String
    let logger: Logger
    /// Its limits: the server's (``TimeshiftSettings``), or a catch-up channel's days.
    private let limits: Mutex<TimeshiftSettings>
    private let queue: DispatchQueue
    private let segmenter: Segmenter
    private let published: Mutex<[TimeshiftSegment]>
    /// Bytes handed to the queue and not written yet: past ``backlogLimit`` new bytes are dropped
    /// (a disk that cannot keep up must not fill memory).
    private let backlog = Mutex(0)

    static let backlogLimit = 32 << 20

    /// Opens the window of `channelID` in `directory`, taking over the segments a previous run
    /// left there (a segment cut short by a crash ends at its file's last change).
    init(channelID: Int64, directory: String, settings: TimeshiftSettings, logger: Logger) {
        self.channelID = channelID
        self.directory = directory
        limits = Mutex(settings)
        var logger = logger
        logger[metadataKey: "channel"] = "\(channelID)"
        self.logger = logger
        queue = DispatchQueue(label: "tuner.timeshift")
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let found = Self.load(directory)
        published = Mutex(found)
        segmenter = Segmenter(directory: directory, settings: settings, segments: found)
    }

    /// The limits it keeps to now.
    public var settings: TimeshiftSettings { limits.withLock { $0 } }

    /// Keeps to `settings` from now on (a channel marked for catch-up keeps days), trimming at
    /// once what they no longer hold.
    func keep(to settings: TimeshiftSettings) {
        limits.withLock { $0 = settings }
        queue.async { [self] in
            segmenter.settings = settings
            segmenter.trim(now: nil)
            publish(segmenter.segments)
        }
    }

    /// Drops what ended longer than the window ago (a window whose channel stopped playing is
    /// trimmed by nothing else).
    func age(now: Int64 = TimeshiftWindow.now()) {
        queue.async { [self] in
            segmenter.trim(now: now)
            publish(segmenter.segments)
        }
    }

    /// The segments on disk, oldest first; the last may be the one being written (``TimeshiftSegment/isOpen``).
    public var segments: [TimeshiftSegment] { published.withLock { $0 } }

    /// The first and last instants held (milliseconds since 1970), or nil while empty.
    public var span: (start: Int64, end: Int64)? {
        published.withLock { segments in
            guard let first = segments.first, let last = segments.last else { return nil }
            return (first.start, last.end)
        }
    }

    /// The path of a segment's file.
    func path(of segment: TimeshiftSegment) -> String { directory + "/" + segment.fileName }

    /// The segment named `name` (as its file and the playlists name it), if it is held.
    public func segment(named name: String) -> TimeshiftSegment? {
        published.withLock { segments in segments.first { $0.fileName == name } }
    }

    /// The path of the segment named `name`, if it is held and complete.
    public func completePath(named name: String) -> String? {
        guard let segment = segment(named: name), !segment.isOpen else { return nil }
        return path(of: segment)
    }

    // MARK: - Writing

    /// Whole packets the session appended to its ring at `at` (milliseconds since 1970), with the
    /// marks its packetizer found (keyframes cut segments; PATs and PMTs start them).
    func receive(_ packets: ByteBuffer, marks: [(packet: Int, mark: LiveRing.Mark)], at: Int64) {
        let size = packets.readableBytes
        guard size > 0 else { return }
        let accepted = backlog.withLock { pending -> Bool in
            guard pending + size <= Self.backlogLimit else { return false }
            pending += size
            return true
        }
        guard accepted else {
            queue.async { [self] in segmenter.breakOff(at: at, publish: publish) }
            return
        }
        queue.async { [self] in
            segmenter.append(packets, marks: marks, at: at, publish: publish, logger: logger)
            backlog.withLock { $0 -= size }
        }
    }

    /// The stream broke off (the upstream failed or changed): the segment being written ends, and
    /// the next starts at the next keyframe.
    func breakOff(at: Int64 = TimeshiftWindow.now()) {
        queue.async { [self] in segmenter.breakOff(at: at, publish: publish) }
    }

    /// Waits until everything received so far is on disk (tests, and a clean stop).
    public func settle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    private func publish(_ segments: [TimeshiftSegment]) {
        published.withLock { $0 = segments }
    }

    /// Milliseconds since 1970, now.
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    // MARK: - Files

    /// The segments in `directory`, oldest first: `START-DURATION.ts` complete ones, and a
    /// `START.ts` cut short, renamed to end at its file's last change. Anything else is left alone.
    static func load(_ directory: String) -> [TimeshiftSegment] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [TimeshiftSegment] = []
        for name in names {
            guard var segment = TimeshiftSegment(fileName: name) else { continue }
            let path = directory + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.int64Value
            else { continue }
            segment.bytes = size
            if segment.isOpen {
                let modified = (attributes[.modificationDate] as? Date).map { Int64($0.timeIntervalSince1970 * 1000) }
                segment.isOpen = false
                segment.duration = max(0, (modified ?? segment.start) - segment.start)
                guard
                    (try? FileManager.default.moveItem(atPath: path, toPath: directory + "/" + segment.fileName))
                        != nil
                else { continue }
            }
            found.append(segment)
        }
        found.sort { $0.start < $1.start }
        for index in found.indices { found[index].sequence = index }
        return found
    }
}

/// One segment of a time-shift window.
public struct TimeshiftSegment: Sendable, Equatable {
    /// When its first byte arrived, in milliseconds since 1970.
    public var start: Int64
    /// Until the next segment's first byte (so far, for the open one), in milliseconds.
    public var duration: Int64
    public var bytes: Int64
    /// Still being written: the newest segment while the channel plays.
    public var isOpen: Bool
    /// Its place in the window since the window was opened: playlists number segments by it.
    public var sequence: Int
    /// The stream broke off before it (a failover, a gap): players reset their decoders.
    public var followsGap = false

    public var end: Int64 { start + duration }

    /// `START-DURATION.ts`, or `START.ts` while open.
    public var fileName: String { isOpen ? "\(start).ts" : "\(start)-\(duration).ts" }

    init(start: Int64, duration: Int64, bytes: Int64, isOpen: Bool, sequence: Int) {
        self.start = start
        self.duration = duration
        self.bytes = bytes
        self.isOpen = isOpen
        self.sequence = sequence
    }

    /// Parses a segment file's name: digits, optionally `-` and digits, then `.ts`; nil for
    /// anything else (the name comes from a URL and becomes part of a path).
    public init?(fileName name: String) {
        guard name.hasSuffix(".ts"), name.utf8.count <= 40 else { return nil }
        let stem = name.dropLast(3)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 16 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let start = Int64(parts[0])
        else { return nil }
        if parts.count == 2 {
            guard let duration = Int64(parts[1]) else { return nil }
            self.init(start: start, duration: duration, bytes: 0, isOpen: false, sequence: 0)
        } else {
            self.init(start: start, duration: 0, bytes: 0, isOpen: true, sequence: 0)
        }
    }
}

/// The window's writing state, touched only on its queue.
private final class Segmenter: @unchecked Sendable {
    // Unchecked: every property is read and written on the window's queue alone.
    let directory: String
    var settings: TimeshiftSettings
    var segments: [TimeshiftSegment]
    var handle: FileHandle?
    var pat: ByteBuffer?
    var pmt: ByteBuffer?
    var nextSequence: Int
    /// The next segment follows a break.
    var afterGap = false

    init(directory: String, settings: TimeshiftSettings, segments: [TimeshiftSegment]) {
        self.directory = directory
        self.settings = settings
        self.segments = segments
        nextSequence = segments.count
        afterGap = !segments.isEmpty
    }

    var segmentMilliseconds: Int64 { Int64(settings.segmentSeconds * 1000) }

    func append(
        _ packets: ByteBuffer, marks: [(packet: Int, mark: LiveRing.Mark)], at: Int64,
        publish: ([TimeshiftSegment]) -> Void, logger: Logger
    ) {
        var from = 0
        let count = packets.readableBytes / TSPacket.size
        for (index, mark) in marks.sorted(by: { $0.packet < $1.packet }) where index < count {
            let packet = packets.getSlice(at: packets.readerIndex + index * TSPacket.size, length: TSPacket.size)
            switch mark {
            case .pat: pat = packet
            case .pmt: pmt = packet
            case .keyframe:
                let open = segments.last.flatMap { $0.isOpen ? $0 : nil }
                guard open == nil || at - open!.start >= segmentMilliseconds else { continue }
                if open != nil { write(packets, packets: from..<index) }
                close(at: at)
                from = index
                start(at: at, logger: logger)
            }
        }
        if segments.last?.isOpen == true { write(packets, packets: from..<count) }
        trim(now: nil)
        publish(segments)
    }

    func breakOff(at: Int64, publish: ([TimeshiftSegment]) -> Void) {
        close(at: at)
        afterGap = true
        publish(segments)
    }

    private func write(_ buffer: ByteBuffer, packets range: Range<Int>) {
        guard let handle, !range.isEmpty, let last = segments.indices.last,
            let slice = buffer.getSlice(
                at: buffer.readerIndex + range.lowerBound * TSPacket.size, length: range.count * TSPacket.size)
        else { return }
        do {
            try slice.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                let data = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
                try handle.write(contentsOf: data)
            }
            segments[last].bytes += Int64(slice.readableBytes)
        } catch {
            // A full or failing disk: the segment ends here, the next is tried at the next keyframe.
            try? handle.close()
            self.handle = nil
            segments[last].isOpen = false
            rename(last)
        }
    }

    private func start(at: Int64, logger: Logger) {
        guard makeRoom() else {
            logger.warning(
                "time-shift stopped writing: the disk is below its free-space reserve",
                metadata: ["reserve": "\(settings.minimumFreeBytes)"])
            afterGap = true
            return
        }
        var segment = TimeshiftSegment(start: at, duration: 0, bytes: 0, isOpen: true, sequence: nextSequence)
        segment.followsGap = afterGap
        let path = directory + "/" + segment.fileName
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            afterGap = true
            return
        }
        nextSequence += 1
        afterGap = false
        self.handle = handle
        segments.append(segment)
        // Each segment decodes on its own: the newest tables first, then the keyframe.
        var tables = ByteBuffer()
        if var pat { tables.writeBuffer(&pat) }
        if var pmt { tables.writeBuffer(&pmt) }
        if tables.readableBytes > 0 { write(tables, packets: 0..<(tables.readableBytes / TSPacket.size)) }
    }

    private func close(at: Int64) {
        guard let last = segments.indices.last, segments[last].isOpen else { return }
        try? handle?.close()
        handle = nil
        segments[last].isOpen = false
        segments[last].duration = max(0, at - segments[last].start)
        rename(last)
    }

    private func rename(_ index: Int) {
        let segment = segments[index]
        var open = segment
        open.isOpen = true
        try? FileManager.default.moveItem(
            atPath: directory + "/" + open.fileName, toPath: directory + "/" + segment.fileName)
    }

    /// Drops the oldest complete segments beyond the window's duration (before the newest
    /// segment's end, or before `now` when given) or its byte cap.
    func trim(now: Int64?) {
        guard let newest = segments.last else { return }
        let window = Int64(settings.windowSeconds * 1000)
        let reference = max(newest.end, now ?? newest.end)
        var total = segments.reduce(Int64(0)) { $0 &+ $1.bytes }
        while let oldest = segments.first, !oldest.isOpen,
            reference - oldest.end > window || total > settings.maxBytes
        {
            total -= oldest.bytes
            remove(oldest)
        }
    }

    /// Whether the disk has room for a segment above the reserve, once the oldest segments are
    /// gone if need be.
    private func makeRoom() -> Bool {
        while Self.freeBytes(directory) < settings.minimumFreeBytes {
            guard let oldest = segments.first, !oldest.isOpen else { return false }
            remove(oldest)
        }
        return true
    }

    private func remove(_ segment: TimeshiftSegment) {
        try? FileManager.default.removeItem(atPath: directory + "/" + segment.fileName)
        segments.removeFirst()
    }

    static func freeBytes(_ path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? Int64.max
    }
}
