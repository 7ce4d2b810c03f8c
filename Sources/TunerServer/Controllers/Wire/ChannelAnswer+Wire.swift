import Catalog
import Hummingbird
import TunerAPI

extension ChannelAnswer: ResponseEncodable {
    init(_ item: CatalogItem) {
        self.init(
            id: item.id, sourceID: item.sourceID, kind: item.kind.rawValue, identity: item.identity, name: item.name,
            group: item.group, tvgID: item.tvgID, tvgName: item.tvgName, logo: item.logo, number: item.number,
            url: item.url, headers: item.headers.map { Header(name: $0.name, value: $0.value) },
            catchup: item.catchup.map { Catchup(type: $0.type, days: $0.days, source: $0.source) },
            tvgShift: item.tvgShift, isRadio: item.isRadio, position: item.position, isFavourite: item.isFavourite,
            streamCheck: item.streamCheck.map(StreamCheckAnswer.init))
    }
}

extension StreamCheckAnswer {
    init(_ check: CatalogStreamCheck) {
        self.init(itemID: check.itemID, online: check.online, checkedAt: check.checkedAt, reason: check.reason)
    }
}

extension AlternativeList: ResponseEncodable {
    init(chosen: Bool, items: [CatalogItem]) {
        self.init(chosen: chosen, alternatives: items.map(ChannelAnswer.init))
    }
}

extension ChannelPage: ResponseEncodable {
    init(_ page: CatalogPage<CatalogItem>) {
        self.init(items: page.items.map(ChannelAnswer.init), total: page.total, offset: page.offset, limit: page.limit)
    }
}
