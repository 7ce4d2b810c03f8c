import Foundation
import NIOCore
import NIOPosix

/// Reads a time-shift window as one MPEG-TS stream: from the segment holding an instant (its
/// keyframe at or before it), segment after segment, either up to an instant (a span in the past,
/// of complete segments only) or on into the segment being written and those that follow (a
/// stream that stays behind live by as much as it started). A reader the window's trimming
/// overtakes goes on at the oldest segment left. Files are read on NIO's thread pool, never on
/// the cooperative one.
public struct TimeshiftReader: Sendable {
    let window: TimeshiftWindow
    /// Milliseconds since 1970 the stream ends at (the segment holding it is the last), or nil to
    /// follow the window.
    let until: Int64?
    /// The segment being read (by its start), and the bytes of it read so far.
    private var current: Int64?
    private var offset: Int64 = 0
    private let from: Int64

    /// The instant the stream's first byte arrived at (its first segment's start): where the
    /// reader's time 0 lies. Set by the first ``next()``.
    public private(set) var startedAt: Int64?

    static let chunkSize = 256 << 10

    /// Whether the stream ends where the window has a gap (``isGap(between:and:)``): a remux into
    /// one MP4 cannot carry timestamps that start again, a plain MPEG-TS stream can.
    let endsAtGaps: Bool

    public init(window: TimeshiftWindow, from: Int64, until: Int64? = nil, endsAtGaps: Bool = false) {
        self.window = window
        self.from = from
        self.until = until
        self.endsAtGaps = endsAtGaps
    }

    /// The segment a stream from `from` starts at: the one holding that instant (the open one
    /// holds everything after its start), else the first one after it (`from` lies before the
    /// window or in a gap); nil when nothing is held from `from` on yet.
    public static func first(of segments: [TimeshiftSegment], from: Int64) -> TimeshiftSegment? {
        if let holding = segments.last(where: { $0.start <= from && (from < $0.end || $0.isOpen) }) {
            return holding
        }
        return segments.first { $0.start > from }
    }

    /// Whether a span `[from, to)` (milliseconds since 1970) of `window` has bytes to read: the
    /// segment it would start at is complete and starts before `to`.
    public static func holds(_ window: TimeshiftWindow, from: Int64, to: Int64) -> Bool {
        guard let first = first(of: window.segments, from: from) else { return false }
        return !first.isOpen && first.start < to
    }

    /// Whether the stream broke off between two neighbouring segments (a failover, the channel
    /// stopped and played again, a server restart): their timestamps do not run on.
    public static func isGap(between previous: TimeshiftSegment, and next: TimeshiftSegment) -> Bool {
        next.followsGap || next.start != previous.end
    }

    /// The next bytes; nil once the span is read (never, following the window, unless cancelled).
    public mutating func next() async throws -> ByteBuffer? {
        while !Task.isCancelled {
            let segments = window.segments
            if current == nil {
                guard let first = Self.first(of: segments, from: from) else {
                    if until != nil { return nil }
                    try await Task.sleep(for: .milliseconds(200))
                    continue
                }
                // A span is read from complete segments only.
                if let until, first.start >= until || first.isOpen { return nil }
                current = first.start
                startedAt = first.start
                offset = 0
            }
            guard let index = segments.firstIndex(where: { $0.start == current }) else {
                // Trimmed while being read: on at the oldest segment left.
                guard let oldest = segments.first else { return nil }
                current = oldest.start
                offset = 0
                continue
            }
            let segment = segments[index]
            if until != nil, segment.isOpen { return nil }
            if offset < segment.bytes {
                let path = window.path(of: segment)
                let (start, length) = (offset, Int(min(Int64(Self.chunkSize), segment.bytes - offset)))
                let chunk = try? await NIOThreadPool.singleton.runIfActive {
                    Self.read(path, at: start, length: length)
                }
                guard let chunk, chunk.readableBytes > 0 else {
                    // Renamed as it closed, or trimmed: the next look at the window says which.
                    try await Task.sleep(for: .milliseconds(20))
                    continue
                }
                offset += Int64(chunk.readableBytes)
                return chunk
            }
            if segment.isOpen {
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard index + 1 < segments.count else {
                if until != nil { return nil }
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            let following = segments[index + 1]
            if let until, following.start >= until { return nil }
            if endsAtGaps, Self.isGap(between: segment, and: following) { return nil }
            current = following.start
            offset = 0
        }
        return nil
    }

    static func read(_ path: String, at offset: Int64, length: Int) -> ByteBuffer? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
            let data = try? handle.read(upToCount: length)
        else { return nil }
        return ByteBuffer(bytes: data)
    }
}
