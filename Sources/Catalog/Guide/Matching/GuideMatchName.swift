/// A channel name taken apart for guide matching: the words that name the channel, and the
/// hints around them that say which of several like-named channels it is.
///
/// "UK: BBC One HD", "BBC1" and "bbc one" all give the words `bbc 1`; "ABC 12 Milwaukee WI
/// (WISN) (720p)" gives a call sign `wisn`; "Channel 4 +1" a time shift of one hour; "FX East" the
/// eastern feed; a group "USA" or a prefix "US:" the country `us`. Nothing here traps or grows
/// without bound on hostile names: the input is cut to ``maximumLength`` first.
public struct GuideMatchName: Sendable, Hashable {
    /// The words, lowercased, without accents, quality and feed words; number words as digits.
    public var words: [String]
    /// A North American call sign ("kmbc"), when the name carries one.
    public var callSign: String?
    /// Hours of a time-shifted feed ("+1"), when the name says so.
    public var timeshift: Int?
    /// The feed of a channel sent per time zone: `east` or `west` (Pacific), `mountain`, `central`.
    public var feed: String?
    /// A two-letter country ("us", "uk"), from a prefix, a trailing word, the group or a guide id.
    public var country: String?
    /// The sub-channel of a station with a call sign: "KCBS-DT2" is 2, guide id "KRGVTV52" too.
    public var subchannel: Int?
    /// The name says HD (HD, FHD, UHD, 4K), or the guide id's feed does ("@HD").
    public var hd = false

    /// The words run together ("bbc1"): compared character by character.
    public var compact: String { words.joined() }

    /// Names longer than this are cut: no real channel name comes near it.
    public static let maximumLength = 200

    public init(
        words: [String], callSign: String? = nil, timeshift: Int? = nil, feed: String? = nil, country: String? = nil
    ) {
        self.words = words
        self.callSign = callSign
        self.timeshift = timeshift
        self.feed = feed
        self.country = country
    }

    /// The parts of a channel's display name; `group` (the playlist's group title) may hint at
    /// its country ("UK", "USA | News", "Canada").
    public init(name: String, group: String? = nil) {
        self.init(words: [])
        var text = String(name.prefix(Self.maximumLength))
        text = Self.removingBracketed(text)
        if let (country, rest) = Self.countryPrefix(of: text) {
            self.country = country
            text = rest
        }
        timeshift = Self.timeshiftHours(in: &text)
        // What is left of "+" names a brand ("Bloomberg TV+", "Documentary+"): "plus".
        text = text.replacingOccurrences(of: "+", with: " plus ")
        if let (sign, sub) = Self.callSign(in: &text) { (callSign, subchannel) = (sign, sub) }
        let normalized = CatalogIdentity.normalizedName(text)
        hd = normalized.split(separator: " ").contains { Self.hdWords.contains(String($0)) }
        var words = Self.splitWords(normalized)
        feed = Self.takeFeed(from: &words)
        if let trailing = Self.takeCountryWord(from: &words) { country = country ?? trailing }
        if country == nil, let group { country = Self.country(inGroup: group) }
        self.words = words
    }

    /// The parts of a guide channel's id, as iptv-org and many guides write them:
    /// "OneAmericaNewsNetwork.us@SD" is the words `one america news network`, country `us`;
    /// "KMBCTV91.us@HD" carries the call sign `kmbc`; "FX.us@West" the western feed.
    /// `nil` for an id without letters to go on.
    public init?(guideID: String) {
        self.init(words: [])
        var id = Substring(guideID.prefix(Self.maximumLength))
        var extraWord: String?
        if let at = id.firstIndex(of: "@") {
            let feedWord = id[id.index(after: at)...].lowercased()
            hd = ["hd", "4k", "uhd"].contains { feedWord.hasPrefix($0) || feedWord.hasSuffix($0) }
            feed = Self.feedWords[feedWord] ?? (feedWord.hasSuffix("east") ? "east" : nil)
            if feed == nil, feedWord.hasSuffix("west") || feedWord.hasSuffix("pacific") { feed = "west" }
            // Any other feed names a version of the channel ("@Arabic", "@Plus"): a word of it.
            if feed == nil, !hd, feedWord != "sd", !feedWord.isEmpty { extraWord = feedWord }
            id = id[..<at]
        }
        if let dot = id.lastIndex(of: "."), id.distance(from: dot, to: id.endIndex) == 3 {
            country = Self.countryCodes[id[id.index(after: dot)...].lowercased()]
            id = id[..<dot]
        }
        let base = String(id)
        if country == "us" || country == "ca", let (sign, sub) = Self.callSign(inID: base) {
            (callSign, subchannel) = (sign, sub)
        }
        var words = Self.splitWords(
            CatalogIdentity.normalizedName(Self.splittingCamelCase(base) + " " + (extraWord ?? "")))
        _ = Self.takeFeed(from: &words)
        if let trailing = Self.takeCountryWord(from: &words) { country = country ?? trailing }
        guard !words.isEmpty else { return nil }
        self.words = words
    }

    // MARK: - Pieces

    /// Drops "[Not 24/7]", "[Geo-blocked]" and the like: notes about the stream, not the channel.
    static func removingBracketed(_ text: String) -> String {
        var result = ""
        var depth = 0
        for character in text {
            if character == "[" {
                depth += 1
            } else if character == "]" {
                depth = max(0, depth - 1)
                result.append(" ")
            } else if depth == 0 {
                result.append(character)
            }
        }
        return result
    }

    /// "UK: BBC One", "US | CNN", "[UK] …" (brackets are gone by now), "FR - TF1": a country code
    /// of two or three capitals before a separator.
    static func countryPrefix(of text: String) -> (String, String)? {
        let trimmed = text.drop { $0 == " " }
        let letters = trimmed.prefix { $0.isASCII && $0.isLetter && $0.isUppercase }
        guard (2...3).contains(letters.count) else { return nil }
        let rest = trimmed.dropFirst(letters.count).drop { $0 == " " }
        guard let separator = rest.first, [":", "|", "-", "•"].contains(separator) else { return nil }
        guard let country = countryCodes[letters.lowercased()] else { return nil }
        let name = rest.dropFirst().drop { $0 == " " }
        guard !name.isEmpty else { return nil }
        return (country, String(name))
    }

    /// "+1", "+2" (hours of a time-shifted feed), taken out of the text.
    static func timeshiftHours(in text: inout String) -> Int? {
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            if characters[index] == "+" {
                var next = index + 1
                while next < characters.count, characters[next] == " " { next += 1 }
                var digits = ""
                var end = next
                while end < characters.count, characters[end].isASCII, characters[end].isNumber, digits.count < 3 {
                    digits.append(characters[end])
                    end += 1
                }
                let followedByLetter = end < characters.count && characters[end].isLetter
                if let hours = Int(digits), (1...24).contains(hours), !followedByLetter {
                    text = String(characters[..<index]) + " " + String(characters[end...])
                    return hours
                }
            }
            index += 1
        }
        return nil
    }

    /// A North American call sign written in capitals: "WISN", "(KMBC)", "KCBS-DT1", "CBRT-DT",
    /// and the sub-channel its suffix names ("-DT2": 2). The word is kept, without its suffix:
    /// guides name stations by it.
    static func callSign(in text: inout String) -> (String, Int?)? {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for (index, raw) in words.enumerated() {
            let inParentheses = raw.hasPrefix("(")
            let word = raw.trimmingCharacters(in: ["(", ")", ",", ".", ":", ";"])
            var letters = Substring(word)
            var suffixed = false
            var subchannel: Int?
            if let dash = word.firstIndex(of: "-") {
                let suffix = word[word.index(after: dash)...].uppercased()
                guard ["DT", "TV", "LD", "CD", "CA"].contains(where: { suffix.hasPrefix($0) }) else { continue }
                letters = word[..<dash]
                suffixed = true
                let digits = suffix.dropFirst(2)
                if !digits.isEmpty, digits.count <= 2, let number = Int(digits) { subchannel = number }
            }
            guard letters.allSatisfy({ $0.isASCII && $0.isUppercase }), let first = letters.first else { continue }
            let american = (first == "K" || first == "W") && (3...4).contains(letters.count)
            let canadian = first == "C" && letters.count == 4 && (inParentheses || suffixed)
            guard american || canadian, !notCallSigns.contains(String(letters)) else { continue }
            guard inParentheses || suffixed || letters.count == 4 else { continue }
            words[index] = String(letters)
            text = words.joined(separator: " ")
            return (letters.lowercased(), subchannel)
        }
        return nil
    }

    /// A call sign at the start of a guide id and the sub-channel its last digit names:
    /// "KMBCTV91" → kmbc 1, "WSBDT1" → wsb 1, "WLOS131" → wlos 1, "CBRTDT" → cbrt.
    static func callSign(inID id: String) -> (String, Int?)? {
        let characters = Array(id)
        guard let first = characters.first, "KWC".contains(first),
            characters.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
        else { return nil }
        for length in (first == "C" ? [4] : [3, 4]) where characters.count >= length {
            var rest = characters[length...]
            guard characters[..<length].allSatisfy(\.isLetter) else { continue }
            for suffix in ["DT", "TV", "LD", "CD"] where rest.starts(with: suffix) {
                rest = rest.dropFirst(2)
                break
            }
            if rest.allSatisfy(\.isNumber), rest.count <= 3 {
                return (String(characters[..<length]).lowercased(), rest.last.flatMap { Int(String($0)) })
            }
        }
        return nil
    }

    /// Words of capitals that look like call signs and are not.
    static let notCallSigns: Set<String> = [
        "WEST", "KIDS", "WWE", "WOW", "WILD", "WAR", "WEB", "KIX", "KISS", "KING", "WORD", "WNBA", "CNBC",
        "CBBC", "CNN", "CMT", "CCTV", "CBS", "CTV", "CITY", "CINE", "CLUB",
    ]

    /// "OneAmericaNewsNetwork" → "One America News Network"; "BBCOne" → "BBC One"; "TSN1" stays.
    static func splittingCamelCase(_ text: String) -> String {
        var result = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if index > 0, character.isUppercase {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || (previous.isUppercase && nextIsLower) { result.append(" ") }
            }
            result.append(character)
        }
        return result
    }

    /// Splits a normalised name into words: letters and digits apart ("bbc1" → bbc 1), number
    /// words as digits, quality words and "the" dropped.
    static func splitWords(_ normalized: String) -> [String] {
        var words: [String] = []
        for word in normalized.split(separator: " ") {
            let word = String(word)
            if qualityWords.contains(word) || isResolution(word) || word == "the" { continue }
            for part in splittingDigits(word) {
                words.append(numberWords[part] ?? part)
            }
        }
        return words
    }

    /// "720p", "1080i", "50fps": how a stream is sent, not which channel it is.
    static func isResolution(_ word: String) -> Bool {
        for suffix in ["p", "i", "fps"] where word.hasSuffix(suffix) {
            let digits = word.dropLast(suffix.count)
            if !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isNumber) { return true }
        }
        return false
    }

    static func splittingDigits(_ word: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var currentIsDigit: Bool?
        for character in word {
            let isDigit = character.isNumber
            if let kind = currentIsDigit, kind != isDigit {
                parts.append(current)
                current = ""
            }
            current.append(character)
            currentIsDigit = isDigit
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    /// Takes feed words ("east", "eastern", "pacific", "east coast") out; returns the feed.
    static func takeFeed(from words: inout [String]) -> String? {
        var feed: String?
        var kept: [String] = []
        for word in words {
            if let found = feedWords[word], words.count > 1 {
                feed = feed ?? found
            } else if word == "coast", feed != nil {
                continue
            } else if word == "feed", feed != nil {
                continue
            } else {
                kept.append(word)
            }
        }
        if kept.last == "feed" { kept.removeLast() }
        if !kept.isEmpty { words = kept }
        return feed
    }

    /// A country word at either end of a name of several words ("Bloomberg TV USA").
    static func takeCountryWord(from words: inout [String]) -> String? {
        guard words.count > 1 else { return nil }
        if let last = words.last, let country = countryWords[last] {
            words.removeLast()
            return country
        }
        if let first = words.first, let country = countryWords[first], words.count > 2 {
            words.removeFirst()
            return country
        }
        return nil
    }

    /// The country a playlist group names: "UK", "USA News", "Canada | Sports", "FR: Cinéma".
    static func country(inGroup group: String) -> String? {
        let words = CatalogIdentity.normalizedName(String(group.prefix(maximumLength))).split(separator: " ")
        for word in words.prefix(3) {
            if let country = countryWords[String(word)] ?? countryNames[String(word)] { return country }
        }
        return nil
    }

    static let hdWords: Set<String> = ["hd", "fhd", "uhd", "4k", "8k"]

    static let qualityWords: Set<String> = [
        "hd", "fhd", "uhd", "sd", "4k", "8k", "hevc", "h264", "h265", "hq", "lq", "hdr", "raw", "backup", "vip",
    ]

    static let numberWords: [String: String] = [
        "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
        "nine": "9", "ten": "10",
    ]

    static let feedWords: [String: String] = [
        "east": "east", "eastern": "east", "west": "west", "western": "west", "pacific": "west",
        "mountain": "mountain", "central": "central",
    ]

    /// Two- and three-letter codes as prefixes and id suffixes write them; "gb" is the UK.
    static let countryCodes: [String: String] = {
        var codes: [String: String] = [:]
        for code in [
            "us", "uk", "ca", "au", "nz", "ie", "fr", "de", "es", "it", "pt", "nl", "be", "ch", "at", "se", "no",
            "dk", "fi", "pl", "ro", "gr", "tr", "ru", "ua", "in", "pk", "mx", "br", "ar", "cl", "co", "pe", "za",
            "ng", "eg", "sa", "ae", "il", "jp", "kr", "cn", "hk", "tw", "ph", "id", "my", "sg", "th", "vn",
            "hu", "cz", "sk", "si", "hr", "rs", "ba", "al", "bg", "lt", "lv", "ee", "ma", "dz", "tn", "af", "ir",
            "iq", "kw", "qa", "bh", "om", "jo", "lb", "sy", "ye", "bd", "lk", "np", "ve", "ec", "bo", "py", "uy",
            "cr", "pa", "do", "pr", "cu", "gt", "hn", "sv", "ni", "jm", "tt",
        ] {
            codes[code] = code
        }
        codes["gb"] = "uk"
        codes["usa"] = "us"
        codes["can"] = "ca"
        codes["aus"] = "au"
        codes["ger"] = "de"
        codes["fra"] = "fr"
        codes["esp"] = "es"
        codes["ita"] = "it"
        codes["por"] = "pt"
        codes["mex"] = "mx"
        codes["bra"] = "br"
        codes["arg"] = "ar"
        codes["ind"] = "in"
        codes["ned"] = "nl"
        codes["swe"] = "se"
        codes["nor"] = "no"
        codes["den"] = "dk"
        codes["pol"] = "pl"
        codes["tur"] = "tr"
        codes["rus"] = "ru"
        return codes
    }()

    /// Words that name a country at the end of a channel's name or in a group: short codes that
    /// are rarely anything else, and country names.
    static let countryWords: [String: String] = [
        // Not "ca": a US station's name ends in its state ("Los Angeles, CA").
        "us": "us", "usa": "us", "uk": "uk", "gb": "uk", "au": "au", "nz": "nz",
    ]

    static let countryNames: [String: String] = [
        "america": "us", "united": "us", "canada": "ca", "canadian": "ca", "britain": "uk", "british": "uk",
        "england": "uk", "scotland": "uk", "wales": "uk", "ireland": "ie", "australia": "au", "france": "fr",
        "french": "fr", "germany": "de", "german": "de", "deutschland": "de", "spain": "es", "espana": "es",
        "spanish": "es", "italy": "it", "italia": "it", "italian": "it", "portugal": "pt", "netherlands": "nl",
        "dutch": "nl", "mexico": "mx", "brazil": "br", "brasil": "br", "india": "in", "indian": "in",
        "turkey": "tr", "turkiye": "tr", "russia": "ru", "poland": "pl", "sweden": "se", "norway": "no",
        "denmark": "dk", "arabic": "sa", "arab": "sa",
    ]
}
