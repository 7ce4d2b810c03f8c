/// An item as an importer produces it, before the store gives it an id.
public struct CatalogItemDraft: Sendable, Hashable {
    public var kind: CatalogItemKind
    public var name: String
    public var group: String?
    public var tvgID: String?
    public var tvgName: String?
    public var logo: String?
    public var number: String?
    public var url: String?
    public var headers: [CatalogHeader]
    public var catchup: CatalogCatchup?
    public var tvgShift: Double?
    public var isRadio: Bool
    /// The provider's own id (Xtream `stream_id` / `series_id`), when it has one.
    public var providerID: String?

    public init(
        kind: CatalogItemKind, name: String, group: String? = nil, tvgID: String? = nil, tvgName: String? = nil,
        logo: String? = nil, number: String? = nil, url: String? = nil, headers: [CatalogHeader] = [],
        catchup: CatalogCatchup? = nil, tvgShift: Double? = nil, isRadio: Bool = false, providerID: String? = nil
    ) {
        self.kind = kind
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
        self.providerID = providerID
    }

    /// The identity favourites and mappings are keyed by.
    public var identity: String {
        CatalogIdentity.identity(kind: kind, tvgID: tvgID, providerID: providerID, name: name, url: url)
    }
}
