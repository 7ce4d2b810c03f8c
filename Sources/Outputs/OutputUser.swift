import Foundation

/// A login for players that take only an Xtream Codes account (TiviMate, IPTV Smarters): its own
/// username and password (stored as PBKDF2), the profiles whose channels it sees, and how many
/// streams it may open at once.
public struct OutputUser: Sendable, Hashable, Codable {
    public var username: String
    /// The profiles whose channels the login sees, in order; the first one's numbers are used.
    public var profileIDs: [String]
    public var maxConnections: Int
    /// How live channels reach this login's player (``OutputProfile/streamProfiles``).
    public var streamProfile = "direct"
    public var createdAt: Date
    /// When the login stops working (seconds since 1970), or nil when it never does. Xtream
    /// clients show it (`exp_date`); an expired login still answers its account, and nothing else.
    public var expiresAt: Int64?
    /// A disabled login answers its account (`status: Disabled`) and nothing else, until it is
    /// enabled again; its settings stay as they were.
    public var isDisabled = false

    public init(username: String, profileIDs: [String], maxConnections: Int = 1, createdAt: Date = Date()) {
        self.username = username
        self.profileIDs = profileIDs
        self.maxConnections = maxConnections
        self.createdAt = createdAt
    }

    /// Whether the login has expired at `now` (seconds since 1970).
    public func isExpired(at now: Int64) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= now
    }

    /// The latest expiry a login may have: the end of the year 9999, as panels' dates can say.
    public static let latestExpiry: Int64 = 253_402_300_799

    /// Whether `name` may be a username: 1 to 64 of letters, digits, `.`, `_` and `-` (it appears
    /// in stream paths, `/live/USER/PASS/ID.ts`).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0)
                    || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            }
    }
}
