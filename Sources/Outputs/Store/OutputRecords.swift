/// The rows of output profiles, their channel numbers and the Xtream logins in one engine: what
/// ``OutputStore`` reads and writes, without its rules (ids, clamps, passwords, numbering).
///
/// Rows travel as ``OutputProfileRow`` and ``OutputUserRow``, the columns as both engines store
/// them, so a profile reads back the same from either.
protocol OutputRecords: Sendable {
    /// Every profile, oldest first.
    func profiles() async throws -> [OutputProfileRow]
    func profile(id: String) async throws -> OutputProfileRow?
    /// Stores a new profile (its stream profile starts `direct`); false, writing nothing, when a
    /// profile has its id.
    func insertProfile(_ row: OutputProfileRow) async throws -> Bool
    /// Replaces name, selection, numbering, renames, edits and stream limit; false when no profile
    /// has the row's id.
    func updateProfileSettings(_ row: OutputProfileRow) async throws -> Bool
    func setStreamProfile(_ value: String, ofProfile id: String) async throws
    /// Removes a profile and its numbers; false when there was none.
    func removeProfile(id: String) async throws -> Bool

    /// The numbers a profile's channels were given.
    func numbers(profileID: String) async throws -> [OutputChannelKey: Int]
    /// Stores numbers in one transaction; a channel or a number already taken keeps its row.
    func addNumbers(_ numbers: [OutputChannelKey: Int], profileID: String) async throws
    /// Changes a profile and its numbers in one transaction: `change` is given the profile and its
    /// numbers as they are (no other writer changes them until it commits) and returns the new ones,
    /// every number once. Nil, writing nothing, when no profile has the id.
    func changeLineup(
        profileID: String,
        _ change: @escaping @Sendable (OutputProfileRow, [OutputChannelKey: Int]) throws -> LineupRows
    ) async throws -> OutputProfileRow?

    /// Stores an uploaded logo under its name; false, writing nothing, when it is there already.
    func insertLogo(name: String, bytes: [UInt8], createdAt: Double) async throws -> Bool
    /// An uploaded logo's bytes.
    func logo(name: String) async throws -> [UInt8]?

    /// Every login, by name.
    func users() async throws -> [OutputUserRow]
    func user(named name: String) async throws -> OutputUserRow?
    /// Stores a new login (its stream profile starts `direct`); false, writing nothing, when the
    /// name is taken.
    func insertUser(_ row: OutputUserRow) async throws -> Bool
    func setStreamProfile(_ value: String, ofUser username: String) async throws
    /// Disables a login, or enables it again.
    func setDisabled(_ value: Bool, ofUser username: String) async throws
    /// Replaces a login's profiles (``OutputUserRow/profileIDs``), limit and expiry, and its
    /// password hash when one is given, in one transaction; false when there is no such login.
    func updateUser(
        named username: String, profileIDs: String, maxConnections: Int, expiresAt: Int64?, password: PasswordHash?
    ) async throws -> Bool
    /// Removes a login; false when there was none.
    func removeUser(named name: String) async throws -> Bool
}
