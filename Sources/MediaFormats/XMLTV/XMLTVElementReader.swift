/// Builds channels and programmes from the tokens of ``XMLTVScanner``: a small state machine
/// that knows where in `<tv><programme><title>…` it is, and collects finished items as events.
///
/// It copies text only inside the elements it keeps, so the bulk of a guide (whitespace,
/// credits, video details) is skipped without creating a single `String`.
struct XMLTVElementReader: XMLTVTokenSink {
    /// What a depth-3 or depth-4 element's text becomes.
    private enum Field {
        case displayName, channelURL
        case title, subTitle, description, category, episodeNumber, premiere, date, length, ratingValue
    }

    private enum Container {
        case none, channel, programme
    }

    let maxTextLength: Int
    var encoding: XMLTVTextDecoder.Encoding = .utf8
    /// Finished channels, programmes and warnings, drained by the parser after each chunk.
    var events: [XMLTVParser.Event] = []

    /// Hashes of the names of the open elements, to recover from unclosed or stray end tags.
    private var openElements: [UInt64] = []
    private var rootIsTV = false
    private var container = Container.none
    private var channel = XMLTVChannel(id: "")
    private var programme = XMLTVProgramme(channel: "", start: XMLTVDate(secondsSince1970: 0))
    private var rating: XMLTVRating?
    private var ratingIsStar = false

    private var field: Field?
    private var fieldDepth = 0
    private var fieldLang: String?
    private var fieldSystem: String?
    private var lengthUnit = 1
    private var text: [UInt8] = []
    private var textTruncated = false
    /// Input offset of the last tag, to place warnings about the text that follows it.
    private var lastTagOffset = 0

    /// The last channel id read from a programme and its `String`: consecutive programmes
    /// nearly always share a channel, so this saves an allocation per programme.
    private var lastChannelBytes: [UInt8] = []
    private var lastChannel = ""

    init(maxTextLength: Int) {
        self.maxTextLength = maxTextLength
        openElements.reserveCapacity(16)
    }

    /// Whether the elements still open at the end of input should be reported.
    var hasOpenElements: Bool { !openElements.isEmpty && container != .none }

    // MARK: - Tokens

    mutating func startElement(
        _ name: UnsafeRawBufferPointer, _ attributes: XMLTVAttributeList, selfClosing: Bool, offset: Int
    ) {
        lastTagOffset = offset
        openElements.append(Self.hash(name))
        let depth = openElements.count
        switch depth {
        case 1:
            rootIsTV = XMLTVScanner.equals(name, "tv")
            if !rootIsTV {
                warn(.notXMLTV, offset: offset, detail: String(decoding: name, as: UTF8.self))
            }
        case 2:
            guard rootIsTV else { break }
            if XMLTVScanner.equals(name, "programme") {
                beginProgramme(attributes, offset: offset)
            } else if XMLTVScanner.equals(name, "channel") {
                beginChannel(attributes, offset: offset)
            } else {
                container = .none
            }
        case 3:
            switch container {
            case .channel: startChannelChild(name, attributes)
            case .programme: startProgrammeChild(name, attributes, offset: offset)
            case .none: break
            }
        case 4:
            // Inside <rating> / <star-rating>.
            guard container == .programme, rating != nil, field == nil else { break }
            if XMLTVScanner.equals(name, "value") {
                beginField(.ratingValue)
            } else if XMLTVScanner.equals(name, "icon"), let icon = icon(attributes) {
                rating?.icons.append(icon)
            }
        default:
            break
        }
        if selfClosing {
            closeInnermost(offset: offset)
        }
    }

    mutating func endElement(_ name: UnsafeRawBufferPointer, offset: Int) {
        lastTagOffset = offset
        let hash = Self.hash(name)
        if openElements.last == hash {
            closeInnermost(offset: offset)
            return
        }
        guard let index = openElements.lastIndex(of: hash) else {
            warn(.mismatchedEndTag, offset: offset, detail: "</" + String(decoding: name, as: UTF8.self) + ">")
            return
        }
        // Elements left open inside this one (`<desc>a<br>b</desc>`) are closed with it.
        warn(.unclosedElement, offset: offset, detail: "</" + String(decoding: name, as: UTF8.self) + ">")
        while openElements.count > index {
            closeInnermost(offset: offset)
        }
    }

    mutating func characters(_ raw: UnsafeRawBufferPointer) {
        guard field != nil, !textTruncated else { return }
        XMLTVTextDecoder.append(raw, to: &text, encoding: encoding, entities: true, attribute: false)
        limitText()
    }

    mutating func cdata(_ raw: UnsafeRawBufferPointer) {
        guard field != nil, !textTruncated else { return }
        XMLTVTextDecoder.append(raw, to: &text, encoding: encoding, entities: false, attribute: false)
        limitText()
    }

    mutating func declaration(_ attributes: XMLTVAttributeList) {
        guard let label = attributes.value("encoding") else { return }
        let name = String(decoding: label, as: UTF8.self)
        if let known = XMLTVTextDecoder.Encoding(label: name) {
            encoding = known
        } else {
            warn(.unsupportedEncoding, offset: 0, detail: name)
        }
    }

    mutating func warn(_ kind: XMLTVWarning.Kind, offset: Int, detail: String) {
        events.append(.warning(XMLTVWarning(offset: offset, kind: kind, detail: detail)))
    }

    // MARK: - Elements

    private mutating func beginChannel(_ attributes: XMLTVAttributeList, offset: Int) {
        guard let id = attributes.value("id"), !id.isEmpty else {
            warn(.channelWithoutID, offset: offset, detail: "")
            container = .none
            return
        }
        channel = XMLTVChannel(id: attributeString(id))
        container = .channel
    }

    private mutating func beginProgramme(_ attributes: XMLTVAttributeList, offset: Int) {
        container = .none
        guard let channelBytes = attributes.value("channel"), !channelBytes.isEmpty else {
            warn(.programmeWithoutChannel, offset: offset, detail: "")
            return
        }
        guard let startBytes = attributes.value("start"), let start = XMLTVDate(bytes: startBytes) else {
            let written = attributes.value("start").map { String(decoding: $0, as: UTF8.self) } ?? ""
            warn(.invalidStart, offset: offset, detail: written)
            return
        }
        var stop: XMLTVDate?
        if let stopBytes = attributes.value("stop") {
            stop = XMLTVDate(bytes: stopBytes)
            if stop == nil {
                warn(.invalidStop, offset: offset, detail: String(decoding: stopBytes, as: UTF8.self))
            }
        }
        if !channelBytes.elementsEqual(lastChannelBytes) {
            lastChannelBytes.removeAll(keepingCapacity: true)
            lastChannelBytes.append(contentsOf: channelBytes)
            lastChannel = attributeString(channelBytes)
        }
        programme = XMLTVProgramme(channel: lastChannel, start: start, stop: stop)
        if let catchup = attributes.value("catchup-id") {
            programme.catchupID = attributeString(catchup)
        }
        container = .programme
    }

    private mutating func startChannelChild(_ name: UnsafeRawBufferPointer, _ attributes: XMLTVAttributeList) {
        if XMLTVScanner.equals(name, "display-name") {
            beginField(.displayName, lang: attributes.value("lang"))
        } else if XMLTVScanner.equals(name, "icon") {
            if let icon = icon(attributes) { channel.icons.append(icon) }
        } else if XMLTVScanner.equals(name, "url") {
            beginField(.channelURL)
        }
    }

    private mutating func startProgrammeChild(
        _ name: UnsafeRawBufferPointer, _ attributes: XMLTVAttributeList, offset: Int
    ) {
        // Dispatch on length: each length has at most a few candidates.
        switch name.count {
        case 3:
            if XMLTVScanner.equals(name, "new") { programme.isNew = true }
        case 4:
            if XMLTVScanner.equals(name, "desc") {
                beginField(.description, lang: attributes.value("lang"))
            } else if XMLTVScanner.equals(name, "icon") {
                if let icon = icon(attributes) { programme.icons.append(icon) }
            } else if XMLTVScanner.equals(name, "date") {
                beginField(.date)
            }
        case 5:
            if XMLTVScanner.equals(name, "title") { beginField(.title, lang: attributes.value("lang")) }
        case 6:
            if XMLTVScanner.equals(name, "length") {
                let unit = attributes.value("units")
                lengthUnit =
                    unit.map { XMLTVScanner.equals($0, "hours") ? 3600 : XMLTVScanner.equals($0, "minutes") ? 60 : 1 }
                    ?? 1
                beginField(.length)
            } else if XMLTVScanner.equals(name, "rating") {
                rating = XMLTVRating(system: attributeString(attributes.value("system")), value: "")
                ratingIsStar = false
            }
        case 8:
            if XMLTVScanner.equals(name, "category") {
                beginField(.category, lang: attributes.value("lang"))
            } else if XMLTVScanner.equals(name, "premiere") {
                beginField(.premiere, lang: attributes.value("lang"))
            }
        case 9:
            if XMLTVScanner.equals(name, "sub-title") { beginField(.subTitle, lang: attributes.value("lang")) }
        case 11:
            if XMLTVScanner.equals(name, "episode-num") {
                beginField(.episodeNumber, system: attributes.value("system"))
            } else if XMLTVScanner.equals(name, "star-rating") {
                rating = XMLTVRating(system: attributeString(attributes.value("system")), value: "")
                ratingIsStar = true
            }
        case 16:
            if XMLTVScanner.equals(name, "previously-shown") {
                var shown = XMLTVPreviouslyShown()
                if let start = attributes.value("start") {
                    shown.start = XMLTVDate(bytes: start)
                    if shown.start == nil {
                        warn(.invalidDate, offset: offset, detail: String(decoding: start, as: UTF8.self))
                    }
                }
                shown.channel = attributeString(attributes.value("channel"))
                programme.previouslyShown = shown
            }
        default:
            break
        }
    }

    private mutating func beginField(
        _ kind: Field, lang: UnsafeRawBufferPointer? = nil, system: UnsafeRawBufferPointer? = nil
    ) {
        field = kind
        fieldDepth = openElements.count
        fieldLang = attributeString(lang)
        fieldSystem = attributeString(system)
        text.removeAll(keepingCapacity: true)
        textTruncated = false
    }

    /// Closes the innermost open element, finishing whatever it was building.
    private mutating func closeInnermost(offset: Int) {
        let depth = openElements.count
        if let field, depth == fieldDepth {
            finishField(field)
        }
        if depth == 3, container == .programme, let finished = rating {
            if ratingIsStar {
                programme.starRatings.append(finished)
            } else {
                programme.ratings.append(finished)
            }
            rating = nil
        }
        if depth == 2 {
            switch container {
            case .channel:
                var finished = XMLTVChannel(id: "")
                swap(&finished, &channel)
                events.append(.channel(finished))
            case .programme:
                var finished = XMLTVProgramme(channel: "", start: XMLTVDate(secondsSince1970: 0))
                swap(&finished, &programme)
                events.append(.programme(finished))
            case .none:
                break
            }
            container = .none
            rating = nil
        }
        if depth == 1 {
            rootIsTV = false
        }
        openElements.removeLast()
    }

    private mutating func finishField(_ kind: Field) {
        let value = Self.trimmedString(text)
        switch kind {
        case .displayName: channel.displayNames.append(XMLTVText(value, lang: fieldLang))
        case .channelURL: channel.urls.append(value)
        case .title: programme.titles.append(XMLTVText(value, lang: fieldLang))
        case .subTitle: programme.subTitles.append(XMLTVText(value, lang: fieldLang))
        case .description: programme.descriptions.append(XMLTVText(value, lang: fieldLang))
        case .category: programme.categories.append(XMLTVText(value, lang: fieldLang))
        case .episodeNumber: programme.episodeNumbers.append(XMLTVEpisodeNumber(system: fieldSystem, value: value))
        case .premiere: programme.premiere = XMLTVText(value, lang: fieldLang)
        case .date: programme.date = value
        case .length: programme.length = Int(value).map { $0 * lengthUnit }
        case .ratingValue: rating?.value = value
        }
        field = nil
        fieldLang = nil
        fieldSystem = nil
        text.removeAll(keepingCapacity: true)
    }

    private mutating func limitText() {
        if text.count > maxTextLength {
            text.removeLast(text.count - maxTextLength)
            // Do not leave half a UTF-8 sequence at the cut.
            while let last = text.last, last & 0xC0 == 0x80 { text.removeLast() }
            if let last = text.last, last >= 0xC0 { text.removeLast() }
            textTruncated = true
            warn(.textTooLong, offset: lastTagOffset, detail: "\(maxTextLength) bytes kept")
        }
    }

    private func icon(_ attributes: XMLTVAttributeList) -> XMLTVIcon? {
        guard let src = attributes.value("src") else { return nil }
        return XMLTVIcon(
            src: attributeString(src),
            width: attributes.value("width").flatMap { Int(String(decoding: $0, as: UTF8.self)) },
            height: attributes.value("height").flatMap { Int(String(decoding: $0, as: UTF8.self)) }
        )
    }

    /// A decoded attribute value. (Called with `if let`, never as `optional.map(attributeString)`:
    /// a method reference would capture, and so copy, the whole reader each time.)
    private func attributeString(_ raw: UnsafeRawBufferPointer) -> String {
        // The scratch buffer is only allocated on the rare slow path (entities, Latin-1).
        var scratch: [UInt8] = []
        return XMLTVTextDecoder.string(raw, encoding: encoding, scratch: &scratch)
    }

    private func attributeString(_ raw: UnsafeRawBufferPointer?) -> String? {
        guard let raw else { return nil }
        return attributeString(raw)
    }

    private static func trimmedString(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { raw in
            var start = 0
            var end = raw.count
            while start < end, XMLTVScanner.isSpace(raw[start]) { start += 1 }
            while end > start, XMLTVScanner.isSpace(raw[end - 1]) { end -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
        }
    }

    /// FNV-1a: enough to tell element names apart when matching end tags.
    private static func hash(_ name: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
