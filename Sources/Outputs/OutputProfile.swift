import Foundation

/// A set of channels handed to players: which ones, in which order, under which numbers, and
/// the HDHomeRun device and stream limit players see.
public struct OutputProfile: Sendable, Codable, Hashable, Identifiable {
    /// Lowercase letters, digits and dashes, up to 32: it appears in every output URL.
    public var id: String
    public var name: String
    public var selection: OutputSelection
    public var numbering: OutputNumbering
    /// Names players show instead of the playlist's, by entry identity.
    public var renames: [String: String]
    /// Groups, logos and disabled channels the lineup editor set, by entry identity.
    public var edits: [String: OutputChannelEdit] = [:]
    /// HDHomeRun's DeviceID: eight hex digits valid under libhdhomerun's checksum.
    public var deviceID: UInt32
    /// The secret other machines give (`?key=` or a path segment) to read this profile.
    public var accessKey: String
    /// How many streams players may open at once (HDHomeRun `TunerCount`).
    public var streamLimit: Int
    /// How live channels reach this profile's players: `direct`, `remux` or `transcode`
    /// (``streamProfiles``); a request's `?profile=` overrides it.
    public var streamProfile = "direct"
    public var createdAt: Date

    /// The stream profiles a profile or login may name.
    public static let streamProfiles = ["direct", "remux", "transcode"]

    public init(
        id: String, name: String, selection: OutputSelection = .allLive, numbering: OutputNumbering = .init(),
        renames: [String: String] = [:], deviceID: UInt32, accessKey: String, streamLimit: Int = 2,
        createdAt: Date = Date()
    ) {
        self.id = id
        self.name = name
        self.selection = selection
        self.numbering = numbering
        self.renames = renames
        self.deviceID = deviceID
        self.accessKey = accessKey
        self.streamLimit = streamLimit
        self.createdAt = createdAt
    }

    /// The id of the profile every data folder starts with: all live channels.
    public static let defaultID = "default"

    /// Whether `id` may name a profile: 1 to 32 of `a-z`, `0-9` and `-`, starting with a letter
    /// or digit.
    public static func isValidID(_ id: String) -> Bool {
        guard (1...32).contains(id.utf8.count), let first = id.utf8.first, first != UInt8(ascii: "-") else {
            return false
        }
        return id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}
