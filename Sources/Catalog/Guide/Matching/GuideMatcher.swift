import Foundation

/// Proposes guide channels for playlist channels that carry no usable `tvg-id`, by name.
///
/// Each guide channel is indexed once (its name and, where the guide's id reads as one, its id:
/// "OneAmericaNewsNetwork.us@SD"). A channel's name is compared with the guide channels that
/// share a word, a call sign or enough letters with it: the shared words weighted by how rare
/// they are among the guide's names, the letters in common, then hints that tell like-named
/// channels apart (call sign, country, feed, time shift). The score's parts are kept, so the
/// user sees why a suggestion came. Pure and `Sendable`: built per guide, used from any task.
public struct GuideMatcher: Sendable {
    /// A guide channel to match against.
    public struct Channel: Sendable, Hashable {
        public var epgID: String
        public var name: String

        public init(epgID: String, name: String) {
            self.epgID = epgID
            self.name = name
        }
    }

    /// A suggestion at or above this score, this far ahead of the next guide channel's, applies
    /// by itself; the rest are shown for the user to accept.
    public static let automaticScore = 85
    public static let automaticLead = 8
    /// Guide channels scored per name at most.
    static let maximumCandidates = 2_000

    struct Indexed: Sendable {
        var channel: Channel
        /// The display name's parts and the id's (when it reads as a name).
        var names: [GuideMatchName]
        /// The letter triples of each name, computed once.
        var trigrams: [Set<String>]
        var callSign: String?
        var country: String?
        var feed: String?
        var timeshift: Int?
        var subchannel: Int?
        var hd: Bool
        /// The guide id before its feed ("fx.us" of "FX.us@West"): feeds of one channel.
        var channelKey: String
    }

    let channels: [Indexed]
    let byWord: [String: [Int32]]
    let byCallSign: [String: [Int32]]
    let byTrigram: [String: [Int32]]
    let weights: [String: Double]
    let unknownWeight: Double

    public init(channels: [Channel]) {
        var indexed: [Indexed] = []
        indexed.reserveCapacity(channels.count)
        for channel in channels {
            let display = GuideMatchName(name: channel.name)
            let fromID = GuideMatchName(guideID: channel.epgID)
            var names = display.words.isEmpty ? [] : [display]
            if let fromID, fromID.words != display.words { names.append(fromID) }
            guard !names.isEmpty else { continue }
            indexed.append(
                Indexed(
                    channel: channel, names: names, trigrams: names.map { Self.trigrams($0.compact) },
                    callSign: display.callSign ?? fromID?.callSign,
                    country: fromID?.country ?? display.country, feed: display.feed ?? fromID?.feed,
                    timeshift: display.timeshift ?? fromID?.timeshift,
                    subchannel: display.subchannel ?? fromID?.subchannel, hd: display.hd || fromID?.hd == true,
                    channelKey: Self.channelKey(channel.epgID)))
        }
        var byWord: [String: [Int32]] = [:]
        var byCallSign: [String: [Int32]] = [:]
        var byTrigram: [String: [Int32]] = [:]
        for (index, entry) in indexed.enumerated() {
            let position = Int32(index)
            var words = Set<String>()
            var trigrams = Set<String>()
            for (name, grams) in zip(entry.names, entry.trigrams) {
                words.formUnion(name.words)
                trigrams.formUnion(grams)
            }
            for word in words { byWord[word, default: []].append(position) }
            for trigram in trigrams { byTrigram[trigram, default: []].append(position) }
            if let callSign = entry.callSign { byCallSign[callSign, default: []].append(position) }
        }
        let count = Double(max(1, indexed.count))
        weights = byWord.mapValues { log(1 + count / Double($0.count)) }
        unknownWeight = log(1 + count)
        self.channels = indexed
        self.byWord = byWord
        self.byCallSign = byCallSign
        self.byTrigram = byTrigram
    }

    /// The best guide channels for a channel's name, one per guide id, best first (at most
    /// `limit`). `group` is the playlist's group title (a country hint); `excluding` holds guide
    /// ids (lowercased) the user refused for this channel: never suggested, so the next best rise.
    public func suggestions(
        forName name: String, group: String? = nil, limit: Int = 3, excluding refused: Set<String> = []
    ) -> [GuideMatchSuggestion] {
        let query = GuideMatchName(name: name, group: group)
        guard !query.words.isEmpty || query.callSign != nil, limit > 0 else { return [] }
        var best: [String: (suggestion: GuideMatchSuggestion, sameQuality: Bool)] = [:]
        let queryTrigrams = Self.trigrams(query.compact)
        for index in candidates(for: query) {
            let entry = channels[Int(index)]
            let key = entry.channel.epgID.lowercased()
            if refused.contains(key) { continue }
            let suggestion = score(query, trigrams: queryTrigrams, against: entry)
            if let known = best[key], known.suggestion.score >= suggestion.score { continue }
            best[key] = (suggestion, entry.hd == query.hd)
        }
        // Equal scores: the feed of the quality the name asks for (HD or not), then the shorter name.
        let ranked = best.values.sorted {
            if $0.suggestion.score != $1.suggestion.score { return $0.suggestion.score > $1.suggestion.score }
            if $0.sameQuality != $1.sameQuality { return $0.sameQuality }
            return $0.suggestion.name.count < $1.suggestion.name.count
        }.map(\.suggestion)
        return Array(ranked.prefix(limit))
    }

    /// The suggestion that applies by itself, if any: the best at ``automaticScore`` or above and
    /// ``automaticLead`` ahead of the best of another channel (feeds of one channel, "FX.us@East"
    /// and "FX.us@HD", are one channel here: the ranking already chose among them).
    public static func automatic(_ suggestions: [GuideMatchSuggestion]) -> GuideMatchSuggestion? {
        guard let first = suggestions.first, first.score >= automaticScore else { return nil }
        let key = channelKey(first.epgID)
        if let rival = suggestions.dropFirst().first(where: { channelKey($0.epgID) != key }),
            first.score - rival.score < automaticLead
        {
            return nil
        }
        return first
    }

    /// A guide id without its feed, lowercased: "FX.us@West" → "fx.us".
    static func channelKey(_ epgID: String) -> String {
        String(epgID.split(separator: "@", maxSplits: 1).first ?? Substring(epgID)).lowercased()
    }

    // MARK: - Candidates and scores

    /// Guide channels sharing a rare enough word, the call sign, or (for names whose words match
    /// nothing, such as "bbcone" against "BBC One") many letter triples.
    func candidates(for query: GuideMatchName) -> Set<Int32> {
        var found = Set<Int32>()
        if let callSign = query.callSign { found.formUnion(byCallSign[callSign] ?? []) }
        let common = max(50, channels.count / 8)
        // Rarest words first, and no more than `maximumCandidates`: a guide whose names share
        // words by the thousand (a hostile one) costs a bounded amount per channel.
        let postings = query.words.compactMap { byWord[$0] }.sorted { $0.count < $1.count }
        for list in postings where list.count <= common && found.count < Self.maximumCandidates {
            found.formUnion(list.prefix(Self.maximumCandidates))
        }
        if found.isEmpty, let rarest = postings.first { found.formUnion(rarest.prefix(Self.maximumCandidates)) }
        if found.count < 20 {
            let grams = Self.trigrams(query.compact)
            var counts: [Int32: Int] = [:]
            for gram in grams {
                guard let list = byTrigram[gram], list.count <= common * 2 else { continue }
                for index in list { counts[index, default: 0] += 1 }
            }
            let needed = max(2, grams.count / 2)
            for (index, count) in counts where count >= needed && found.count < Self.maximumCandidates {
                found.insert(index)
            }
        }
        return found
    }

    func weight(_ word: String) -> Double { weights[word] ?? unknownWeight }

    func score(_ query: GuideMatchName, trigrams queryTrigrams: Set<String>, against entry: Indexed)
        -> GuideMatchSuggestion
    {
        var bestWords = 0.0
        var bestLetters = 0.0
        var shared: [String] = []
        for (name, grams) in zip(entry.names, entry.trigrams) {
            let (words, common) = wordSimilarity(query.words, name.words)
            let letters = Self.dice(queryTrigrams, grams)
            if 0.7 * words + 0.3 * letters > 0.7 * bestWords + 0.3 * bestLetters {
                (bestWords, bestLetters, shared) = (words, letters, common)
            }
        }
        var parts = [
            GuideMatchScorePart(
                reason: "words", points: Int((70 * bestWords).rounded()),
                detail: shared.isEmpty ? "none shared" : shared.joined(separator: " ")),
            GuideMatchScorePart(
                reason: "letters", points: Int((30 * bestLetters).rounded()),
                detail: "\(query.compact) ~ "
                    + (entry.names.first?.compact ?? "")),
        ]
        var sameStation = false
        if let mine = query.callSign, let theirs = entry.callSign {
            sameStation = mine == theirs
            parts.append(
                sameStation
                    ? GuideMatchScorePart(reason: "call sign", points: 25, detail: mine.uppercased())
                    : GuideMatchScorePart(
                        reason: "call sign", points: -50, detail: "\(mine.uppercased()) ≠ \(theirs.uppercased())"))
        }
        if sameStation {
            // A station sends several channels: "-DT2" is its second; no suffix means its first.
            switch (query.subchannel, entry.subchannel) {
            case (let mine?, let theirs?) where mine == theirs:
                parts.append(GuideMatchScorePart(reason: "sub-channel", points: 15, detail: "\(mine)"))
            case (let mine?, let theirs?):
                parts.append(GuideMatchScorePart(reason: "sub-channel", points: -35, detail: "\(mine) ≠ \(theirs)"))
            case (nil, let theirs?) where theirs != 1:
                parts.append(GuideMatchScorePart(reason: "sub-channel", points: -20, detail: "\(theirs), none named"))
            default: break
            }
        } else {
            // Numbers tell channels apart ("Fox Sports 2", "ABC News Live 3", "Jewelry TV 2").
            let mine = Set(query.words.filter { $0.allSatisfy(\.isNumber) })
            let theirs = Set(entry.names.flatMap(\.words).filter { $0.allSatisfy(\.isNumber) })
            if mine != theirs, !(mine.isEmpty && theirs.isEmpty),
                mine.isDisjoint(with: theirs) || mine.isEmpty
                    || theirs.isEmpty
            {
                let describe = { (numbers: Set<String>) in
                    numbers.isEmpty ? "none" : numbers.sorted().joined(separator: " ")
                }
                parts.append(
                    GuideMatchScorePart(
                        reason: "number", points: -20, detail: "\(describe(mine)) ≠ \(describe(theirs))"))
            }
        }
        if let mine = query.country, let theirs = entry.country {
            parts.append(
                mine == theirs
                    ? GuideMatchScorePart(reason: "country", points: 5, detail: mine)
                    : GuideMatchScorePart(reason: "country", points: -30, detail: "\(mine) ≠ \(theirs)"))
        }
        switch (query.feed, entry.feed) {
        case (let mine?, let theirs?) where mine == theirs:
            parts.append(GuideMatchScorePart(reason: "feed", points: 5, detail: mine))
        case (let mine?, let theirs?):
            parts.append(GuideMatchScorePart(reason: "feed", points: -25, detail: "\(mine) ≠ \(theirs)"))
        case (let mine?, nil) where mine != "east":
            // "PBS Kids Pacific" against a guide channel that names no feed: maybe another one.
            parts.append(GuideMatchScorePart(reason: "feed", points: -5, detail: "\(mine), none in the guide"))
        case (nil, let theirs?) where theirs != "east":
            // A name that names no feed is most often the eastern (or only) one.
            parts.append(GuideMatchScorePart(reason: "feed", points: -4, detail: "\(theirs), none named"))
        default: break
        }
        if query.timeshift != entry.timeshift {
            let mine = query.timeshift.map { "+\($0)" } ?? "none"
            let theirs = entry.timeshift.map { "+\($0)" } ?? "none"
            parts.append(GuideMatchScorePart(reason: "time shift", points: -40, detail: "\(mine) ≠ \(theirs)"))
        }
        let total = parts.reduce(0) { $0 + $1.points }
        return GuideMatchSuggestion(
            epgID: entry.channel.epgID, name: entry.channel.name, score: min(100, max(0, total)), parts: parts)
    }

    /// The shared words' weight against both names' (0–1): mostly how much of the playlist's
    /// name the guide's explains, partly the other way round, so "HSN" still finds "HSN - Home
    /// Shopping Network" but "ABC" prefers plain "ABC" to "ABC News Live".
    func wordSimilarity(_ query: [String], _ name: [String]) -> (Double, [String]) {
        guard !query.isEmpty, !name.isEmpty else { return (0, []) }
        var remaining: [String: Int] = [:]
        for word in name { remaining[word, default: 0] += 1 }
        var common: [String] = []
        var sharedWeight = 0.0
        for word in query where remaining[word, default: 0] > 0 {
            remaining[word]! -= 1
            common.append(word)
            sharedWeight += weight(word)
        }
        let queryWeight = query.reduce(0) { $0 + weight($1) }
        let nameWeight = name.reduce(0) { $0 + weight($1) }
        let coverage = sharedWeight / queryWeight
        let explained = sharedWeight / nameWeight
        return (0.5 * coverage + 0.5 * explained, common)
    }

    static func trigrams(_ text: String) -> Set<String> {
        let characters = Array(text)
        guard characters.count >= 3 else { return characters.isEmpty ? [] : [text] }
        var grams = Set<String>()
        for index in 0...(characters.count - 3) { grams.insert(String(characters[index..<index + 3])) }
        return grams
    }

    static func dice(_ a: Set<String>, _ b: Set<String>) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        return 2 * Double(a.intersection(b).count) / Double(a.count + b.count)
    }
}
