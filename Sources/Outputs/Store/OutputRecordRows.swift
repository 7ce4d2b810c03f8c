import Foundation

/// A profile as its columns hold it: selection, numbering, renames and edits as JSON text (read whole,
/// never queried by field), the device id widened to 64 bits, the time in seconds since 1970.
struct OutputProfileRow: Sendable, Hashable {
    var id: String
    var name: String
    var selection: String
    var numbering: String
    var renames: String
    var edits: String
    var deviceID: Int64
    var accessKey: String
    var streamLimit: Int
    var streamProfile: String
    var createdAt: Double

    init(
        id: String, name: String, selection: String, numbering: String, renames: String, edits: String,
        deviceID: Int64, accessKey: String, streamLimit: Int, streamProfile: String, createdAt: Double
    ) {
        self.id = id
        self.name = name
        self.selection = selection
        self.numbering = numbering
        self.renames = renames
        self.edits = edits
        self.deviceID = deviceID
        self.accessKey = accessKey
        self.streamLimit = streamLimit
        self.streamProfile = streamProfile
        self.createdAt = createdAt
    }

    /// The columns of `profile`, its stream limit clamped to 1…64.
    init(_ profile: OutputProfile) throws {
        let encoder = JSONEncoder()
        // Sorted keys: the same profile is the same text, whichever engine stores it.
        encoder.outputFormatting = .sortedKeys
        func json(_ value: some Encodable) throws -> String {
            String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        self.init(
            id: profile.id, name: profile.name, selection: try json(profile.selection),
            numbering: try json(profile.numbering), renames: try json(profile.renames),
            edits: try json(profile.edits), deviceID: Int64(profile.deviceID), accessKey: profile.accessKey,
            streamLimit: min(max(profile.streamLimit, 1), 64), streamProfile: profile.streamProfile,
            createdAt: profile.createdAt.timeIntervalSince1970)
    }

    var profile: OutputProfile {
        get throws {
            let decoder = JSONDecoder()
            var profile = OutputProfile(
                id: id, name: name,
                selection: try decoder.decode(OutputSelection.self, from: Data(selection.utf8)),
                numbering: try decoder.decode(OutputNumbering.self, from: Data(numbering.utf8)),
                renames: try decoder.decode([String: String].self, from: Data(renames.utf8)),
                deviceID: UInt32(truncatingIfNeeded: deviceID), accessKey: accessKey, streamLimit: streamLimit,
                createdAt: Date(timeIntervalSince1970: createdAt))
            profile.streamProfile = streamProfile
            profile.edits = try decoder.decode([String: OutputChannelEdit].self, from: Data(edits.utf8))
            return profile
        }
    }
}

/// A profile and its numbers as a lineup change leaves them (``OutputRecords/changeLineup(profileID:_:)``).
struct LineupRows: Sendable {
    var profile: OutputProfileRow
    var numbers: [OutputChannelKey: Int]

    /// What to write over `old`: the keys whose rows go (gone or renumbered) and the rows to add.
    func changes(from old: [OutputChannelKey: Int]) -> (removed: [OutputChannelKey], added: [OutputChannelKey: Int]) {
        let added = numbers.filter { old[$0.key] != $0.value }
        let removed = old.keys.filter { numbers[$0] == nil || added[$0] != nil }
        return (removed, added)
    }
}

/// A login as its columns hold it: the profile ids as a JSON array, the password as its PBKDF2
/// hash, salt and rounds (never the password).
struct OutputUserRow: Sendable, Hashable {
    var username: String
    var password: PasswordHash
    var profileIDs: String
    var maxConnections: Int
    var streamProfile: String
    var createdAt: Double
    var expiresAt: Int64?
    var disabled = false

    init(
        username: String, password: PasswordHash, profileIDs: String, maxConnections: Int, streamProfile: String,
        createdAt: Double, expiresAt: Int64?, disabled: Bool = false
    ) {
        self.username = username
        self.password = password
        self.profileIDs = profileIDs
        self.maxConnections = maxConnections
        self.streamProfile = streamProfile
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.disabled = disabled
    }

    /// The columns of `user` with `password`, its connection limit clamped to 1…64.
    init(_ user: OutputUser, password: PasswordHash) throws {
        self.init(
            username: user.username, password: password, profileIDs: try Self.profileIDs(user),
            maxConnections: Self.maxConnections(user), streamProfile: user.streamProfile,
            createdAt: user.createdAt.timeIntervalSince1970, expiresAt: user.expiresAt, disabled: user.isDisabled)
    }

    /// The `profileIDs` column of `user`: its profile ids as a JSON array.
    static func profileIDs(_ user: OutputUser) throws -> String {
        String(decoding: try JSONEncoder().encode(user.profileIDs), as: UTF8.self)
    }

    /// The `maxConnections` column of `user`: its limit clamped to 1…64.
    static func maxConnections(_ user: OutputUser) -> Int {
        min(max(user.maxConnections, 1), 64)
    }

    var user: OutputUser {
        get throws {
            var user = OutputUser(
                username: username,
                profileIDs: try JSONDecoder().decode([String].self, from: Data(profileIDs.utf8)),
                maxConnections: maxConnections, createdAt: Date(timeIntervalSince1970: createdAt))
            user.streamProfile = streamProfile
            user.expiresAt = expiresAt
            user.isDisabled = disabled
            return user
        }
    }
}
