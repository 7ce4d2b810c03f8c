/// What guide matching works on: the live channels no guide reaches by the user's mapping, their
/// `tvg-id` or their exact name, and the channels of every guide.
public struct GuideMatchWork: Sendable {
    /// A live channel to match, by the identity its match is stored under.
    public struct Subject: Sendable, Hashable {
        public var itemID: Int64
        public var kind: CatalogItemKind
        public var identity: String
        public var name: String
        public var group: String?
        /// Guide channels the user said this channel is not (lowercased ids).
        public var refused: Set<String>

        public init(
            itemID: Int64, kind: CatalogItemKind, identity: String, name: String, group: String?,
            refused: Set<String> = []
        ) {
            self.itemID = itemID
            self.kind = kind
            self.identity = identity
            self.name = name
            self.group = group
            self.refused = refused
        }
    }

    public var subjects: [Subject]
    public var channels: [GuideMatcher.Channel]

    public init(subjects: [Subject], channels: [GuideMatcher.Channel]) {
        self.subjects = subjects
        self.channels = channels
    }
}

/// A guide channel matched to an item by name, automatically: stored by the item's identity (so
/// it survives refreshes until the next match), below the user's mapping and the `tvg-id`.
public struct GuideAutomaticMatch: Sendable, Hashable {
    public var kind: CatalogItemKind
    public var identity: String
    public var epgID: String
    public var score: Int

    public init(kind: CatalogItemKind, identity: String, epgID: String, score: Int) {
        self.kind = kind
        self.identity = identity
        self.epgID = epgID
        self.score = score
    }
}
