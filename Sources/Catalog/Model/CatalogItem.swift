/// A live channel, movie or series as the catalog lists it.
public struct CatalogItem: Sendable, Hashable, Codable, Identifiable {
    /// The row id. It stays the same across refreshes as long as ``identity`` does.
    public var id: Int64
    public var sourceID: Int64
    public var kind: CatalogItemKind
    /// The identity that favourites, custom order and guide mappings are keyed by; see ``CatalogIdentity``.
    public var identity: String
    public var name: String
    public var group: String?
    /// `tvg-id`: the channel's id in the programme guide.
    public var tvgID: String?
    /// `tvg-name`: the channel's name in the programme guide.
    public var tvgName: String?
    public var logo: String?
    /// The provider's channel number (`tvg-chno`), as written.
    public var number: String?
    /// The stream URL; `nil` for a series (its episodes have URLs).
    public var url: String?
    /// Headers the provider needs on requests for this stream.
    public var headers: [CatalogHeader]
    public var catchup: CatalogCatchup?
    /// `tvg-shift` in hours.
    public var tvgShift: Double?
    public var isRadio: Bool
    /// Order within the source, as the provider listed it.
    public var position: Int
    public var isFavourite: Bool
    /// The last stream check, if the item was ever checked.
    public var streamCheck: CatalogStreamCheck?

    public init(
        id: Int64, sourceID: Int64, kind: CatalogItemKind, identity: String, name: String, group: String? = nil,
        tvgID: String? = nil, tvgName: String? = nil, logo: String? = nil, number: String? = nil, url: String? = nil,
        headers: [CatalogHeader] = [], catchup: CatalogCatchup? = nil, tvgShift: Double? = nil, isRadio: Bool = false,
        position: Int = 0, isFavourite: Bool = false, streamCheck: CatalogStreamCheck? = nil
    ) {
        self.id = id
        self.sourceID = sourceID
        self.kind = kind
        self.identity = identity
        self.name = name
        self.group = group
        self.tvgID = tvgID
        self.tvgName = tvgName
        self.logo = logo
        self.number = number
        self.url = url
        self.headers = headers
        self.catchup = catchup
        self.tvgShift = tvgShift
        self.isRadio = isRadio
        self.position = position
        self.isFavourite = isFavourite
        self.streamCheck = streamCheck
    }
}
