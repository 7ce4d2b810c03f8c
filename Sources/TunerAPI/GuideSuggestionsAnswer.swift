/// `GET /api/v1/channels/{id}/guide-suggestions`: the guide channels proposed for a channel by
/// name, best first, each with its score and the parts that make it up; and the one matched
/// automatically (a score of 85 or more, 8 ahead of another channel's), if any.
public struct GuideSuggestionsAnswer: Codable, Sendable, Equatable {
    public var itemID: Int64
    public var automatic: Automatic?
    public var suggestions: [Suggestion]

    /// The guide channel the channel uses because its name matched.
    public struct Automatic: Codable, Sendable, Equatable {
        public var epgID: String
        public var score: Int

        public init(epgID: String, score: Int) {
            self.epgID = epgID
            self.score = score
        }
    }

    /// One proposed guide channel.
    public struct Suggestion: Codable, Sendable, Equatable {
        public var epgID: String
        public var name: String
        /// 0–100.
        public var score: Int
        public var parts: [Part]

        public init(epgID: String, name: String, score: Int, parts: [Part]) {
            self.epgID = epgID
            self.name = name
            self.score = score
            self.parts = parts
        }
    }

    /// What was compared (`words`, `letters`, `call sign`, `sub-channel`, `number`, `country`,
    /// `feed`, `time shift`), the points it gave or took, and what was found.
    public struct Part: Codable, Sendable, Equatable {
        public var reason: String
        public var points: Int
        public var detail: String

        public init(reason: String, points: Int, detail: String) {
            self.reason = reason
            self.points = points
            self.detail = detail
        }
    }

    public init(itemID: Int64, automatic: Automatic?, suggestions: [Suggestion]) {
        self.itemID = itemID
        self.automatic = automatic
        self.suggestions = suggestions
    }
}
