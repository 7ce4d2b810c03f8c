/// A `<programme>` of an XMLTV guide: one showing on one channel.
public struct XMLTVProgramme: Sendable, Hashable {
    /// The `channel` attribute: the ``XMLTVChannel/id`` it airs on.
    public var channel: String
    /// When it starts.
    public var start: XMLTVDate
    /// When it ends, if the guide says (many guides leave it to the next programme's start).
    public var stop: XMLTVDate?
    /// `<title>`s, one per language (some guides repeat a language).
    public var titles: [XMLTVText]
    /// `<sub-title>`s, usually the episode name.
    public var subTitles: [XMLTVText]
    /// `<desc>`s.
    public var descriptions: [XMLTVText]
    /// `<category>`s.
    public var categories: [XMLTVText]
    /// `<icon>`s.
    public var icons: [XMLTVIcon]
    /// `<episode-num>`s in every system the guide gives; see ``seasonEpisode``.
    public var episodeNumbers: [XMLTVEpisodeNumber]
    /// `<rating>`s (parental ratings).
    public var ratings: [XMLTVRating]
    /// `<star-rating>`s (critics' ratings).
    public var starRatings: [XMLTVRating]
    /// `<previously-shown>`: present when the programme is a repeat.
    public var previouslyShown: XMLTVPreviouslyShown?
    /// `<premiere>`: present when this is a premiere; its text may be empty.
    public var premiere: XMLTVText?
    /// `<new/>`: the first showing of a new programme.
    public var isNew: Bool
    /// `<date>`: when it was made, as written (`2011`, `20111122`…).
    public var date: String?
    /// `<length>` in seconds.
    public var length: Int?
    /// The `catchup-id` attribute: the provider's id for requesting this programme's recording.
    public var catchupID: String?

    public init(
        channel: String,
        start: XMLTVDate,
        stop: XMLTVDate? = nil,
        titles: [XMLTVText] = [],
        subTitles: [XMLTVText] = [],
        descriptions: [XMLTVText] = [],
        categories: [XMLTVText] = [],
        icons: [XMLTVIcon] = [],
        episodeNumbers: [XMLTVEpisodeNumber] = [],
        ratings: [XMLTVRating] = [],
        starRatings: [XMLTVRating] = [],
        previouslyShown: XMLTVPreviouslyShown? = nil,
        premiere: XMLTVText? = nil,
        isNew: Bool = false,
        date: String? = nil,
        length: Int? = nil,
        catchupID: String? = nil
    ) {
        self.channel = channel
        self.start = start
        self.stop = stop
        self.titles = titles
        self.subTitles = subTitles
        self.descriptions = descriptions
        self.categories = categories
        self.icons = icons
        self.episodeNumbers = episodeNumbers
        self.ratings = ratings
        self.starRatings = starRatings
        self.previouslyShown = previouslyShown
        self.premiere = premiere
        self.isNew = isNew
        self.date = date
        self.length = length
        self.catchupID = catchupID
    }

    /// The first title.
    public var title: String? { titles.first?.value }

    /// Season and episode, from the `xmltv_ns` number when there is one, else an on-screen one.
    public var seasonEpisode: XMLTVSeasonEpisode? {
        if let number = episodeNumbers.first(where: { $0.system == "xmltv_ns" }), let parsed = number.seasonEpisode {
            return parsed
        }
        for number in episodeNumbers where number.system == nil || number.system == "onscreen" {
            if let parsed = number.seasonEpisode { return parsed }
        }
        return nil
    }

    /// The 1-based season number, when the guide gives one.
    public var seasonNumber: Int? { seasonEpisode?.season }

    /// The 1-based episode number, when the guide gives one.
    public var episodeNumber: Int? { seasonEpisode?.episode }

    /// Whether the programme is a repeat.
    public var isRepeat: Bool { previouslyShown != nil }
}
