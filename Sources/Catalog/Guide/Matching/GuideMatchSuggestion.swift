/// A guide channel proposed for a playlist channel, with its score and the parts that make it up,
/// so a user can see why ("words 58, call sign +25, country +5") rather than trust a number.
public struct GuideMatchSuggestion: Sendable, Hashable, Codable {
    /// The guide channel's id (`<channel id>` of the XMLTV).
    public var epgID: String
    /// The guide channel's name.
    public var name: String
    /// 0–100: at ``GuideMatcher/automaticScore`` and above, with a clear lead, the match applies
    /// by itself.
    public var score: Int
    /// What the score is made of, in the order applied; their points add up to the score before
    /// it is held within 0–100.
    public var parts: [GuideMatchScorePart]

    public init(epgID: String, name: String, score: Int, parts: [GuideMatchScorePart]) {
        self.epgID = epgID
        self.name = name
        self.score = score
        self.parts = parts
    }
}

/// One part of a suggestion's score: what was compared, and the points it gave or took.
public struct GuideMatchScorePart: Sendable, Hashable, Codable {
    /// `words`, `letters`, `call sign`, `country`, `feed` or `time shift`.
    public var reason: String
    public var points: Int
    /// What was found: the shared words, the two call signs, the two countries.
    public var detail: String

    public init(reason: String, points: Int, detail: String) {
        self.reason = reason
        self.points = points
        self.detail = detail
    }
}
