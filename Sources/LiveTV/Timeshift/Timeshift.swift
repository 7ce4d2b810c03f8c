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
            channelID: channelID, directory: folder, settings: settings, logger: logger)
        return windows.withLock { windows in
            if let open = windows[channelID] { return open }
            windows[channelID] = window
            return window
        }
    }

    /// The window a session of a channel writes to, when the settings keep that channel.
    func windowForSession(channelID: Int64, isFavourite: Bool) -> TimeshiftWindow? {
        guard settings.keeps(isFavourite: isFavourite) else { return nil }
        return window(for: channelID, create: true)
    }

    /// Waits until every window's received bytes are on disk.
    public func settle() async {
        for window in windows.withLock({ Array($0.values) }) { await window.settle() }
    }
}
