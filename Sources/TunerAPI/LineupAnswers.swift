/// `GET /api/v1/outputs/{id}/lineup`: a page of the lineup editor's list, every live channel once
/// (the lineup's first, by number), narrowed by the query's filter.
public struct LineupPage: Codable, Sendable, Equatable {
    public var profileID: String
    /// Only the channels added by hand are in the lineup (``OutputProfileSettings/pickedOnly``).
    public var pickedOnly: Bool
    /// Channels the filter lets through.
    public var total: Int
    /// Channels in the lineup, disabled ones too.
    public var lineupCount: Int
    public var offset: Int
    public var rows: [LineupRow]

    public init(profileID: String, pickedOnly: Bool, total: Int, lineupCount: Int, offset: Int, rows: [LineupRow]) {
        self.profileID = profileID
        self.pickedOnly = pickedOnly
        self.total = total
        self.lineupCount = lineupCount
        self.offset = offset
        self.rows = rows
    }
}

/// One live channel in the lineup editor.
public struct LineupRow: Codable, Sendable, Equatable {
    /// The catalog item (`/api/v1/channels/{itemID}`).
    public var itemID: Int64
    /// What the lineup's changes name the channel by: it survives refreshes.
    public var identity: String
    public var sourceID: Int64
    /// The playlist's name and group.
    public var name: String
    public var group: String?
    /// The number players tune, when the channel is in the lineup.
    public var number: Int?
    public var inLineup: Bool
    /// In the lineup, but left out of the outputs.
    public var disabled: Bool
    /// Whether the channel has a guide channel (mapped, by `tvg-id`, by name or matched).
    public var hasGuide: Bool
    /// The editor's name, group and logo (`http(s)` URL or `upload:<name>`), when set.
    public var rename: String?
    public var groupOverride: String?
    public var logoOverride: String?
    /// The logo players are shown (the override's, else the playlist's), as a URL through Tuner.
    public var logoURL: String?

    public init(
        itemID: Int64, identity: String, sourceID: Int64, name: String, group: String?, number: Int?,
        inLineup: Bool, disabled: Bool, hasGuide: Bool, rename: String?, groupOverride: String?,
        logoOverride: String?, logoURL: String?
    ) {
        self.itemID = itemID
        self.identity = identity
        self.sourceID = sourceID
        self.name = name
        self.group = group
        self.number = number
        self.inLineup = inLineup
        self.disabled = disabled
        self.hasGuide = hasGuide
        self.rename = rename
        self.groupOverride = groupOverride
        self.logoOverride = logoOverride
        self.logoURL = logoURL
    }
}

/// `GET /api/v1/outputs/{id}/lineup/identities`: every channel the filter lets through, in the
/// list's order, for "select all".
public struct LineupIdentities: Codable, Sendable, Equatable {
    public var identities: [String]

    public init(identities: [String]) { self.identities = identities }
}

/// `POST /api/v1/outputs/{id}/lineup`: one change of a profile's lineup, applied whole or not at
/// all. The parts apply in this order, so one change can add channels and number them.
public struct LineupChangeRequest: Codable, Sendable, Equatable {
    /// Identities put into the lineup.
    public var add: [String]?
    /// Identities taken out (their numbers are forgotten).
    public var remove: [String]?
    /// Channels of the lineup given `from`, `from + 1`, … in the order listed, skipping the numbers
    /// of the lineup's other channels.
    public var renumber: Renumber?
    /// A channel moved to a number: the channels from there up to the next free number move up one.
    public var place: Place?
    /// Names, groups, logos and disabled flags; a field left out stays, an empty string goes back
    /// to the playlist's.
    public var edits: [Edit]?

    public init(
        add: [String]? = nil, remove: [String]? = nil, renumber: Renumber? = nil, place: Place? = nil,
        edits: [Edit]? = nil
    ) {
        self.add = add
        self.remove = remove
        self.renumber = renumber
        self.place = place
        self.edits = edits
    }

    public struct Renumber: Codable, Sendable, Equatable {
        public var identities: [String]
        public var from: Int

        public init(identities: [String], from: Int) {
            self.identities = identities
            self.from = from
        }
    }

    public struct Place: Codable, Sendable, Equatable {
        public var identity: String
        public var number: Int

        public init(identity: String, number: Int) {
            self.identity = identity
            self.number = number
        }
    }

    public struct Edit: Codable, Sendable, Equatable {
        public var identity: String
        public var name: String?
        public var group: String?
        /// An `http(s)` URL, or `upload:<name>` as `POST /api/v1/logos` answered.
        public var logo: String?
        public var disabled: Bool?

        public init(
            identity: String, name: String? = nil, group: String? = nil, logo: String? = nil, disabled: Bool? = nil
        ) {
            self.identity = identity
            self.name = name
            self.group = group
            self.logo = logo
            self.disabled = disabled
        }
    }
}

/// What a lineup change left: how many channels the lineup holds.
public struct LineupChangeAnswer: Codable, Sendable, Equatable {
    public var profileID: String
    public var lineupCount: Int

    public init(profileID: String, lineupCount: Int) {
        self.profileID = profileID
        self.lineupCount = lineupCount
    }
}

/// `POST /api/v1/outputs/{id}/lineup/guides`: channels of the lineup editor's selection to give
/// their best guide suggestion.
public struct LineupGuidesRequest: Codable, Sendable, Equatable {
    public var identities: [String]

    public init(identities: [String]) { self.identities = identities }
}

/// What accepting the best guide suggestions did.
public struct LineupGuidesAnswer: Codable, Sendable, Equatable {
    /// Channels mapped to their best suggestion now.
    public var accepted: Int
    /// Channels that had a guide already (left as they were).
    public var alreadyGuided: Int
    /// Channels no guide channel was suggested for.
    public var withoutSuggestion: Int
    /// Channels whose guide (or "no guide") was chosen by hand: a choice of the user's always stays.
    public var chosenByHand: Int

    public init(accepted: Int, alreadyGuided: Int, withoutSuggestion: Int, chosenByHand: Int = 0) {
        self.accepted = accepted
        self.alreadyGuided = alreadyGuided
        self.withoutSuggestion = withoutSuggestion
        self.chosenByHand = chosenByHand
    }
}

/// `POST /api/v1/logos`: an uploaded logo, kept under its content's SHA-256.
public struct LogoAnswer: Codable, Sendable, Equatable {
    /// What a lineup edit's `logo` takes: `upload:<name>`.
    public var logo: String
    /// Where it is served (`/logos/<name>`), to anyone: the name is its content's hash.
    public var url: String

    public init(logo: String, url: String) {
        self.logo = logo
        self.url = url
    }
}
