/// Where a URI sits in the text: a whole URI line, or the value of a URI attribute.
struct HLSURISite: Sendable {
    var valueStart: Int
    var valueEnd: Int
    /// Nil for a URI line.
    var attributeName: Range<Int>?
    var isQuoted: Bool
    var kind: HLSURIKind
}

extension HLSPlaylist {
    /// Every URI in the playlist, in order: URI lines and the URI attributes of known tags
    /// (`URI` of `#EXT-X-KEY`, `#EXT-X-SESSION-KEY`, `#EXT-X-MAP`, `#EXT-X-MEDIA`,
    /// `#EXT-X-STREAM-INF`, `#EXT-X-I-FRAME-STREAM-INF`, `#EXT-X-IMAGE-STREAM-INF`, `#EXT-X-PART`,
    /// `#EXT-X-PRELOAD-HINT`, `#EXT-X-RENDITION-REPORT`, `#EXT-X-SESSION-DATA`; `SERVER-URI` of
    /// `#EXT-X-CONTENT-STEERING`; `X-ASSET-URI` and `X-ASSET-LIST` of `#EXT-X-DATERANGE`).
    /// Unknown tags are not searched, as their values have no defined syntax.
    public var uriReferences: [HLSURIReference] {
        var references: [HLSURIReference] = []
        var sites: [HLSURISite] = []
        var scratch: [HLSRawAttribute] = []
        storage.withUnsafeBufferPointer { p in
            for index in lineRecords.indices {
                sites.removeAll(keepingCapacity: true)
                uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                for site in sites {
                    references.append(
                        HLSURIReference(
                            uri: uriText(site, p),
                            kind: site.kind,
                            line: index + 1,
                            tagName: site.attributeName == nil ? nil : tagName(ofLine: index),
                            attribute: site.attributeName.map { HLSBytes.string(p, $0.lowerBound, $0.upperBound) }))
                }
            }
        }
        return references
    }

    /// Whether line `index` can hold URIs: a URI line, or a tag with URI attributes.
    func hasURISites(line index: Int) -> Bool {
        let record = lineRecords[index]
        return record.kind == .uri || (record.kind == .tag && !record.tag.spec.uriAttributes.isEmpty)
    }

    /// The URI of a site with variables applied.
    func uriText(_ site: HLSURISite, _ p: UnsafeBufferPointer<UInt8>) -> String {
        HLSBytes.substituteVariables(p, site.valueStart, site.valueEnd, variables)?.text
            ?? HLSBytes.string(p, site.valueStart, site.valueEnd)
    }

    /// Appends the URIs of line `index` to `sites`; `scratch` is reused for attribute scanning.
    func uriSites(
        ofLine index: Int, _ p: UnsafeBufferPointer<UInt8>, into sites: inout [HLSURISite],
        scratch: inout [HLSRawAttribute]
    ) {
        let record = lineRecords[index]
        switch record.kind {
        case .uri:
            let kind: HLSURIKind
            switch record.uriRole {
            case .segment: kind = .segment
            case .variant: kind = .playlist
            case .orphan, .none: kind = isMaster ? .playlist : .segment
            }
            sites.append(
                HLSURISite(
                    valueStart: record.contentStart, valueEnd: record.end, attributeName: nil, isQuoted: false,
                    kind: kind))
        case .tag:
            let spec = record.tag.spec
            guard !spec.uriAttributes.isEmpty else { return }
            _ = HLSAttributeScanner.scan(p, record.valueStart, record.end, into: &scratch)
            for attribute in scratch {
                for (name, kind) in spec.uriAttributes
                where HLSBytes.equals(p, attribute.nameStart, attribute.nameEnd, name) {
                    var kind = kind
                    if record.tag == .preloadHint { kind = preloadHintKind(scratch, p) }
                    sites.append(
                        HLSURISite(
                            valueStart: attribute.valueStart, valueEnd: attribute.valueEnd,
                            attributeName: attribute.nameStart..<attribute.nameEnd, isQuoted: attribute.isQuoted,
                            kind: kind))
                }
            }
        case .blank, .comment:
            return
        }
    }

    private func preloadHintKind(_ attributes: [HLSRawAttribute], _ p: UnsafeBufferPointer<UInt8>) -> HLSURIKind {
        guard
            let type = attributes.first(where: { HLSBytes.equals(p, $0.nameStart, $0.nameEnd, HLSAttributeName.type) })
        else { return .other }
        if HLSBytes.equals(p, type.valueStart, type.valueEnd, HLSAttributeName.part) { return .part }
        if HLSBytes.equals(p, type.valueStart, type.valueEnd, HLSAttributeName.map) { return .map }
        return .other
    }
}
