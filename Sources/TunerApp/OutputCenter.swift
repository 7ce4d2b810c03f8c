import Catalog
import Foundation
import LiveTV
import Outputs
import Streaming
import TunerAPI

/// What Tuner hands to other players: output profiles and their M3U, XMLTV and HDHomeRun views.
///
/// A feature object shared by the HTTP layer and the CLI. Reading an output never writes; the
/// numbers of new channels are recorded by ``recordNumbers()`` (after imports, on profile
/// changes, and by the server's numbering service), by the same rule reads use.
public final class OutputCenter: Sendable {
    public let store: OutputStore
    let player: Player
    let catalog: any CatalogStore
    /// Loads an Xtream series' episodes and a film's details from its panel the first time.
    let importer: CatalogImporter?
    /// Placeholder programmes for channels without a guide (Plex hides those otherwise).
    let placeholders: Bool
    let now: @Sendable () -> Int64

    public init(
        store: OutputStore, player: Player, catalog: any CatalogStore, importer: CatalogImporter? = nil,
        placeholders: Bool = true, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.store = store
        self.player = player
        self.catalog = catalog
        self.importer = importer
        self.placeholders = placeholders
        self.now = now
    }

    // MARK: Profiles

    public func profiles() async throws(FeatureError) -> [OutputProfile] {
        try await mapped { try await store.profiles() }
    }

    public func profile(id: String) async throws(FeatureError) -> OutputProfile {
        guard let profile = try await mapped({ try await store.profile(id: id) }) else {
            throw FeatureError(.notFound, "no output profile is called '\(id)'; list them with `tuner outputs`")
        }
        return profile
    }

    /// Makes a profile with a new device id and key, and numbers its channels.
    public func create(_ settings: OutputProfileSettings) async throws(FeatureError) -> OutputProfile {
        guard let id = settings.id else { throw FeatureError(.invalid, "a new profile needs an \"id\"") }
        guard OutputProfile.isValidID(id) else {
            throw FeatureError(.invalid, "'\(id)' is not a profile id: use 1 to 32 of a-z, 0-9 and '-'")
        }
        var profile = OutputProfile(
            id: id, name: settings.name ?? id, deviceID: HDHomeRunDeviceID.random(), accessKey: OutputStore.randomKey())
        try apply(settings, to: &profile)
        let created = profile
        try await mapped {
            try await store.insert(created)
            try await store.setStreamProfile(created.streamProfile, ofProfile: created.id)
            try await store.recordNumbers(profileID: created.id)
        }
        return created
    }

    /// Changes a profile's settings; the id, device id and key stay, and so do given numbers.
    public func update(id: String, settings: OutputProfileSettings) async throws(FeatureError) -> OutputProfile {
        var profile = try await profile(id: id)
        try apply(settings, to: &profile)
        let changed = profile
        try await mapped {
            try await store.update(changed)
            try await store.setStreamProfile(changed.streamProfile, ofProfile: changed.id)
            try await store.recordNumbers(profileID: changed.id)
        }
        return changed
    }

    public func remove(id: String) async throws(FeatureError) {
        guard id != OutputProfile.defaultID else {
            throw FeatureError(
                .conflict,
                "the default profile answers at the root for Plex and Jellyfin; change it instead of removing it")
        }
        try await mapped { try await store.removeProfile(id: id) }
    }

    /// Makes the default profile when there is none (at start).
    public func ensureDefaultProfile() async throws(FeatureError) {
        try await mapped {
            let profile = try await store.ensureDefaultProfile()
            try await store.recordNumbers(profileID: profile.id)
        }
    }

    /// Applies a lineup editor's change (``OutputStore/changeLineup(profileID:_:)``), all or
    /// nothing, once the uploaded logos it names are known to be there.
    @discardableResult
    public func changeLineup(profileID: String, _ change: OutputLineupChange) async throws(FeatureError)
        -> OutputProfile
    {
        for edit in change.edits {
            if let logo = edit.logo, let uploaded = ChannelLogo(reference: logo) {
                guard try await mapped({ try await store.logoBytes(uploaded) }) != nil else {
                    throw FeatureError(.invalid, "no logo was uploaded as \(uploaded.name); upload it first")
                }
            }
        }
        return try await mapped { try await store.changeLineup(profileID: profileID, change) }
    }

    /// Records the numbers new channels of every profile got.
    public func recordNumbers() async throws(FeatureError) {
        try await mapped { try await store.recordNumbersOfEveryProfile() }
    }

    private func apply(_ settings: OutputProfileSettings, to profile: inout OutputProfile) throws(FeatureError) {
        if let name = settings.name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 100 else {
                throw FeatureError(.invalid, "a profile's name must have 1 to 100 characters")
            }
            profile.name = trimmed
        }
        if let kinds = settings.kinds {
            guard !kinds.isEmpty, kinds.allSatisfy(["live", "movie", "series"].contains) else {
                throw FeatureError(.invalid, "kinds must list live, movie or series")
            }
            profile.selection.kinds = kinds
        }
        if let sourceIDs = settings.sourceIDs { profile.selection.sourceIDs = sourceIDs }
        if let groups = settings.groups { profile.selection.groups = groups }
        if let favouritesOnly = settings.favouritesOnly { profile.selection.favouritesOnly = favouritesOnly }
        if let search = settings.search { profile.selection.search = search.isEmpty ? nil : search }
        if let include = settings.include { profile.selection.include = include }
        if let exclude = settings.exclude { profile.selection.exclude = exclude }
        if let pickedOnly = settings.pickedOnly { profile.selection.pickedOnly = pickedOnly }
        if let start = settings.start {
            guard (1...OutputNumbering.highest).contains(start) else {
                throw FeatureError(.invalid, "start must be from 1 to \(OutputNumbering.highest)")
            }
            profile.numbering.start = start
        }
        if let order = settings.order {
            guard let value = OutputNumbering.Order(rawValue: order) else {
                throw FeatureError(.invalid, "order must be playlist, favourites or name")
            }
            profile.numbering.order = value
        }
        if let keep = settings.keepPlaylistNumbers { profile.numbering.keepPlaylistNumbers = keep }
        if let renames = settings.renames {
            guard renames.count <= 100_000, renames.values.allSatisfy({ !$0.isEmpty && $0.count <= 200 }) else {
                throw FeatureError(.invalid, "renames must be names of 1 to 200 characters")
            }
            profile.renames = renames
        }
        if let limit = settings.streamLimit {
            guard (1...64).contains(limit) else { throw FeatureError(.invalid, "streamLimit must be from 1 to 64") }
            profile.streamLimit = limit
        }
        if let streamProfile = settings.streamProfile {
            profile.streamProfile = try Self.checkedStreamProfile(streamProfile)
        }
    }

    /// A profile as the API shows it, with the URLs (keyed) players are given on `base`.
    public func answer(for profile: OutputProfile, base: String) async throws(FeatureError) -> OutputProfileAnswer {
        let links = OutputLinks(base: base, profileID: profile.id, key: profile.accessKey)
        let count = try await lineup(profileID: profile.id).count
        var answer = OutputProfileAnswer(
            id: profile.id, name: profile.name, deviceID: HDHomeRunDeviceID.text(profile.deviceID),
            accessKey: profile.accessKey, streamLimit: profile.streamLimit, channelCount: count,
            kinds: profile.selection.kinds, sourceIDs: profile.selection.sourceIDs, groups: profile.selection.groups,
            favouritesOnly: profile.selection.favouritesOnly, search: profile.selection.search,
            include: profile.selection.include, exclude: profile.selection.exclude, start: profile.numbering.start,
            order: profile.numbering.order.rawValue, keepPlaylistNumbers: profile.numbering.keepPlaylistNumbers,
            playlistURL: links.playlist, guideURL: links.guide, hdhomerunURL: links.deviceBase,
            streamProfile: profile.streamProfile)
        answer.pickedOnly = profile.selection.pickedOnly
        return answer
    }

    static func checkedStreamProfile(_ value: String) throws(FeatureError) -> String {
        guard StreamProfile(rawValue: value) != nil else {
            throw FeatureError(.invalid, "streamProfile must be direct, remux or transcode")
        }
        return value
    }

    // MARK: Access

    /// Whether `key` opens `profile` (compared in constant time).
    public static func opens(_ profile: OutputProfile, key: String?) -> Bool {
        guard var key else { return false }
        // Players append their own query to a URL that has one already (`?key=K?transcode=x`).
        if let cut = key.firstIndex(of: "?") { key = String(key[..<cut]) }
        return PasswordHash.constantTimeEquals(Array(key.utf8), Array(profile.accessKey.utf8))
    }

    // MARK: Outputs

    /// A profile's channels, each as players are told about it (a channel marked for local
    /// catch-up carries it: the M3U's `catchup` attributes, Xtream's `tv_archive`).
    public func lineup(profileID: String) async throws(FeatureError) -> [OutputChannel] {
        try await mapped { try await store.lineup(profileID: profileID) }.map { channel in
            var shown = channel
            shown.item = player.withLocalCatchup(channel.item)
            return shown
        }
    }

    /// The entries of a profile that play by themselves (series play by episode, through Xtream):
    /// what the M3U, XMLTV and HDHomeRun views list.
    public func streams(profileID: String) async throws(FeatureError) -> [OutputChannel] {
        try await lineup(profileID: profileID).filter { $0.item.kind != .series }
    }

    /// The M3U Plus playlist of a profile.
    public func playlist(profile: OutputProfile, links: OutputLinks) async throws(FeatureError) -> String {
        let channels = try await streams(profileID: profile.id)
        return M3UOutput(links: links, logo: logoLink(base: links.base)).string(for: channels)
    }

    /// The XMLTV guide of a profile, handed to `write` a piece at a time (a few hundred channels'
    /// programmes each), so the document is never whole in memory.
    public func guide(
        profile: OutputProfile, links: OutputLinks, write: (String) async throws -> Void
    ) async throws {
        try await guide(channels: try await streams(profileID: profile.id), base: links.base, write: write)
    }

    func guide(channels: [OutputChannel], base: String, write: (String) async throws -> Void) async throws {
        let output = XMLTVOutput(placeholders: placeholders, logo: logoLink(base: base))
        try await write(output.header())
        for batch in stride(from: 0, to: channels.count, by: 500) {
            try await write(output.channels(Array(channels[batch..<min(batch + 500, channels.count)])))
        }
        let now = now()
        // From six hours back (what players show as "earlier"), to the end of what the guide holds.
        let window = (now - 6 * 3600)..<(now + 14 * 86_400)
        let placeholderWindow = (now - 3600)..<(now + 2 * 86_400)
        for batch in stride(from: 0, to: channels.count, by: 250) {
            let slice = channels[batch..<min(batch + 250, channels.count)]
            let programmes = try await catalog.guide(
                itemIDs: slice.map(\.item.id), from: window.lowerBound, to: window.upperBound)
            var text = ""
            for channel in slice {
                text += output.programmes(programmes[channel.item.id] ?? [], of: channel, window: placeholderWindow)
            }
            try await write(text)
        }
        try await write(output.footer())
    }

    /// The HDHomeRun view of a profile.
    public func device(profile: OutputProfile, links: OutputLinks) -> HDHomeRunDevice {
        HDHomeRunDevice(profile: profile, links: links)
    }

    /// The upstream of the channel with `number` in a profile, with the headers its provider needs.
    public func stream(profileID: String, number: Int) async throws(FeatureError) -> (StreamLink, OutputChannel) {
        let channels = try await lineup(profileID: profileID)
        guard let channel = channels.first(where: { $0.number == number }) else {
            throw FeatureError(.notFound, "profile '\(profileID)' has no channel \(number)")
        }
        guard let text = channel.item.url, let url = URL(string: text) else {
            throw FeatureError(.notPlayable, "channel \(number) has no stream")
        }
        let headers = channel.item.headers.map { StreamHeader(name: $0.name, value: $0.value) }
        return (StreamLink(url: url, headers: headers), channel)
    }

    /// A past programme of the channel with `number`: `start` (seconds since 1970) for `duration`
    /// seconds (an hour when not given), through the channel's catch-up settings or its local
    /// catch-up window.
    public func catchupStream(profileID: String, number: Int, start: Int64, duration: Int64?)
        async throws(FeatureError) -> Player.CatchupPlayback
    {
        let channels = try await lineup(profileID: profileID)
        guard let channel = channels.first(where: { $0.number == number }) else {
            throw FeatureError(.notFound, "profile '\(profileID)' has no channel \(number)")
        }
        let length = min(max(duration ?? 3600, 1), 86_400)
        guard GuideTime.supported.contains(start), GuideTime.supported.contains(start + length) else {
            throw FeatureError(.invalid, "utc must be a time between the years 1 and 9999")
        }
        do {
            return try await player.catchupPlayback(
                itemID: channel.item.id, target: .span(start: start, end: start + length))
        } catch let error as FeatureError {
            throw error
        } catch {
            throw FeatureError(.failed, "the catch-up link could not be made: \(error)", cause: error)
        }
    }

    /// Logos through Tuner: a signed proxy URL, so a player never sees the provider's address.
    func logoLink(base: String) -> @Sendable (CatalogItem) -> String? {
        let player = player
        return { item in Player.logoURL(of: item, player: player, baseURL: base) }
    }

    func mapped<T>(_ body: () async throws -> T) async throws(FeatureError) -> T {
        do {
            return try await body()
        } catch let error as FeatureError {
            throw error
        } catch let error as OutputError {
            throw FeatureError(error)
        } catch {
            throw FeatureError(.failed, "the output profiles could not be read or changed: \(error)", cause: error)
        }
    }
}
