import Foundation

/// A standing order of the DVR (`/api/v1/rules`): what to record as the guide fills up. Stored as
/// it is answered; ``RuleRequest`` is the body that makes one.
public struct RecordingRule: Codable, Sendable, Equatable, Identifiable {
    /// What a rule looks for.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Programmes with one title (on the rule's channels, or on any channel).
        case series
        /// Programmes whose title (or description) holds a word or phrase.
        case keyword
        /// A time on chosen weekdays, whatever the guide says (news the guide does not mark).
        case time
        /// Local catch-up: the rule's channels stay tuned and keep their time-shift window for
        /// `keepDays`, offered as catch-up where the provider has none (outputs, the guide).
        case catchup
    }

    /// How a keyword rule compares.
    public enum KeywordMatch: String, Codable, Sendable, CaseIterable {
        /// Anywhere, even inside a word.
        case contains
        /// As a whole word (or words), not inside another.
        case word
        /// The whole title, nothing more.
        case exact
    }

    public var id: Int64
    public var kind: Kind
    /// What the Recordings page and players call it (a series' folder, the time rule's title).
    public var name: String
    /// The channels it watches; empty: every channel with a guide (series and keyword rules).
    public var channelIDs: [Int64]
    /// Series: the title, compared without case, accents or punctuation.
    public var title: String?
    /// Series: only episodes not recorded before (by episode number, sub-title or description).
    public var newOnly: Bool
    /// Keyword: what to look for, and how.
    public var keyword: String?
    public var keywordMatch: KeywordMatch
    /// Keyword: the description counts too, not only the title.
    public var searchDescription: Bool
    /// Time: ISO weekdays (1 Monday … 7 Sunday), the start as `HH:MM` in the server's time zone,
    /// and how long.
    public var weekdays: [Int]
    public var time: String?
    public var durationMinutes: Int?
    /// Seconds recorded before the start and after the end.
    public var paddingBeforeSeconds: Int
    public var paddingAfterSeconds: Int
    /// Of two recordings that cannot both have a connection, the higher priority records.
    public var priority: Int
    /// Retention: at most this many recordings, none older than this many days (kept ones
    /// excepted); nil: no limit. A catch-up rule: the days its channels' windows keep.
    public var keepCount: Int?
    public var keepDays: Int?
    /// Whether a programme may be recorded from another channel that carries it (an
    /// alternative) when its own has no free connection.
    public var otherChannels: Bool
    public var enabled: Bool

    public init(
        id: Int64 = 0, kind: Kind, name: String, channelIDs: [Int64] = [], title: String? = nil, newOnly: Bool = false,
        keyword: String? = nil, keywordMatch: KeywordMatch = .word, searchDescription: Bool = false,
        weekdays: [Int] = [], time: String? = nil, durationMinutes: Int? = nil, paddingBeforeSeconds: Int = 0,
        paddingAfterSeconds: Int = 0, priority: Int = 0, keepCount: Int? = nil, keepDays: Int? = nil,
        otherChannels: Bool = false, enabled: Bool = true
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.channelIDs = channelIDs
        self.title = title
        self.newOnly = newOnly
        self.keyword = keyword
        self.keywordMatch = keywordMatch
        self.searchDescription = searchDescription
        self.weekdays = weekdays
        self.time = time
        self.durationMinutes = durationMinutes
        self.paddingBeforeSeconds = paddingBeforeSeconds
        self.paddingAfterSeconds = paddingAfterSeconds
        self.priority = priority
        self.keepCount = keepCount
        self.keepDays = keepDays
        self.otherChannels = otherChannels
        self.enabled = enabled
    }
}

/// `GET /api/v1/rules`.
public struct RuleList: Codable, Sendable, Equatable {
    public var rules: [RecordingRule]

    public init(rules: [RecordingRule]) { self.rules = rules }
}

/// `POST /api/v1/rules`: a rule without its id; what is left out takes the default (any
/// channel, no padding, priority 0, no retention limit).
public struct RuleRequest: Codable, Sendable, Equatable {
    public var kind: RecordingRule.Kind
    public var name: String?
    public var channelIDs: [Int64]?
    public var title: String?
    public var newOnly: Bool?
    public var keyword: String?
    public var keywordMatch: RecordingRule.KeywordMatch?
    public var searchDescription: Bool?
    public var weekdays: [Int]?
    public var time: String?
    public var durationMinutes: Int?
    public var paddingBeforeSeconds: Int?
    public var paddingAfterSeconds: Int?
    public var priority: Int?
    public var keepCount: Int?
    public var keepDays: Int?
    public var otherChannels: Bool?

    public init(
        kind: RecordingRule.Kind, name: String? = nil, channelIDs: [Int64]? = nil, title: String? = nil,
        newOnly: Bool? = nil, keyword: String? = nil, keywordMatch: RecordingRule.KeywordMatch? = nil,
        searchDescription: Bool? = nil, weekdays: [Int]? = nil, time: String? = nil, durationMinutes: Int? = nil,
        paddingBeforeSeconds: Int? = nil, paddingAfterSeconds: Int? = nil, priority: Int? = nil,
        keepCount: Int? = nil, keepDays: Int? = nil, otherChannels: Bool? = nil
    ) {
        self.kind = kind
        self.name = name
        self.channelIDs = channelIDs
        self.title = title
        self.newOnly = newOnly
        self.keyword = keyword
        self.keywordMatch = keywordMatch
        self.searchDescription = searchDescription
        self.weekdays = weekdays
        self.time = time
        self.durationMinutes = durationMinutes
        self.paddingBeforeSeconds = paddingBeforeSeconds
        self.paddingAfterSeconds = paddingAfterSeconds
        self.priority = priority
        self.keepCount = keepCount
        self.keepDays = keepDays
        self.otherChannels = otherChannels
    }
}
