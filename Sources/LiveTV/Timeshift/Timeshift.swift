import Foundation
import Logging
import Synchronization

/// The time-shift windows of this node, a folder each under `<data>/timeshift/<channel>/`
/// (outside the media cache and its budget), and which channels keep one (``TimeshiftSettings``).
///
/// A feature object of the live engine: ``LiveSessions`` gives each channel's base session (the
/// one that reads the provider) its window when the settings keep that channel; players read the
/// windows through it. A window outlives its session: what it holds stays readable (and is
/// trimmed as it ages) after the channel stops, and a window found on disk at start is taken over.
public final class Timeshift: Sendable {
    public let settings: TimeshiftSettings
    let directory: String
    let logger: Logger
    private let windows = Mutex<[Int64: TimeshiftWindow]>([:])
    /// Channels marked for local catch-up, and the days each keeps (the DVR's catch-up rules).
    private let marks = Mutex<[Int64: Int]>([:])

    public init(settings: TimeshiftSettings, directory: String, logger: Logger) {
        self.settings = settings
        self.directory = directory
        self.logger = logger
    }

    /// Whether channels keep windows at all.
    public var isOn: Bool { settings.mode != .off }

    /// The window of `channelID`, opened (and its folder taken over) on first use; nil when
    /// time-shift is off, unless `create` is false and one exists.
    public func window(for channelID: Int64, create: Bool = false) -> TimeshiftWindow? {
        if let open = windows.withLock({ $0[channelID] }) { return open }
        let folder = directory + "/\(channelID)"
        guard create || FileManager.default.fileExists(atPath: folder) else { return nil }
        let window = TimeshiftWindow(
            channelID: channelID, directory: folder, settings: limits(for: channelID), logger: logger)
        return windows.withLock { windows in
            if let open = windows[channelID] { return open }
            windows[channelID] = window
            return window
        }
    }

    /// The window a session of a channel writes to, when the settings keep that channel or it
    /// is marked for catch-up.
    func windowForSession(channelID: Int64, isFavourite: Bool) -> TimeshiftWindow? {
        guard keeps(channelID: channelID, isFavourite: isFavourite) else { return nil }
        return window(for: channelID, create: true)
    }

    /// Whether a channel keeps a window while it plays.
    public func keeps(channelID: Int64, isFavourite: Bool) -> Bool {
        settings.keeps(isFavourite: isFavourite) || catchupDays(of: channelID) != nil
    }

    // MARK: - Local catch-up

    /// The days of local catch-up channel `channelID` keeps, if it is marked.
    public func catchupDays(of channelID: Int64) -> Int? { marks.withLock { $0[channelID] } }

    /// The channels marked for local catch-up, and their days.
    public var catchupChannels: [Int64: Int] { marks.withLock { $0 } }

    /// Marks channels for local catch-up (replacing the marks): their windows keep `days` (and
    /// no byte cap but the disk's free-space reserve); the windows of channels no longer marked
    /// go back to the server's limits.
    public func setCatchup(_ days: [Int64: Int]) {
        let changed = marks.withLock { marks -> Set<Int64> in
            let changed = Set(marks.keys).symmetricDifference(days.keys).union(
                days.keys.filter { marks[$0] != nil && marks[$0] != days[$0] })
            marks = days
            return changed
        }
        for channelID in changed {
            window(for: channelID, create: days[channelID] != nil)?.keep(to: limits(for: channelID))
        }
    }

    /// What the window of `channelID` keeps: the server's limits, or its catch-up days.
    func limits(for channelID: Int64) -> TimeshiftSettings {
        var limits = settings
        if let days = catchupDays(of: channelID) {
            limits.windowSeconds = max(limits.windowSeconds, Double(days) * 86_400)
            limits.maxBytes = .max
        }
        return limits
    }

    /// Goes over every window on disk: those the settings no longer keep at all (time-shift off,
    /// not marked) are deleted; the others drop what ended longer than their window ago (a
    /// channel that stopped playing trims nothing by itself). The DVR calls it at start, once it
    /// knows the marks, and every few minutes.
    public func sweep() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names {
            guard let channelID = Int64(name), String(channelID) == name else { continue }
            if settings.mode == .off, catchupDays(of: channelID) == nil {
                windows.withLock { _ = $0.removeValue(forKey: channelID) }
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            } else {
                window(for: channelID)?.age()
            }
        }
    }

    /// Waits until every window's received bytes are on disk.
    public func settle() async {
        for window in windows.withLock({ Array($0.values) }) { await window.settle() }
    }
}
