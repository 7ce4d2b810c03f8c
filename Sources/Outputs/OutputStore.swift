import Catalog
import Crypto
import Foundation
import Logging
import TunerStorage

/// Output profiles and their lineups, in the state database (SQLite or PostgreSQL).
///
/// The rules live here (ids, clamps, numbering, passwords); the rows behind ``OutputRecords``, one
/// implementation per engine, so both behave alike. Reading a lineup never writes: numbers not yet
/// recorded are worked out in memory by the same rule ``recordNumbers(profileID:)`` later stores
/// (after each import and profile change), so a GET always shows the numbers the channel will keep.
public final class OutputStore: Sendable {
    let records: any OutputRecords
    let catalog: any CatalogStore
    let logger: Logger
    let logins = VerifiedLogins()
    /// Password hashes (PBKDF2, about half a second each): two threads, fair between addresses.
    public let passwordHashes = PasswordHashPool(width: 2)

    public init(database: StateDatabase, catalog: any CatalogStore, logger: Logger) {
        switch database {
        case .sqlite(let database): records = SQLiteOutputRecords(database: database.writer)
        case .postgres(let database): records = PostgresOutputRecords(database: database, logger: logger)
        }
        self.catalog = catalog
        self.logger = logger
    }

    /// Profiles and logins in a SQLite file.
    public convenience init(database: TunerDatabase, catalog: any CatalogStore, logger: Logger) {
        self.init(database: .sqlite(database), catalog: catalog, logger: logger)
    }

    // MARK: Profiles

    public func profiles() async throws -> [OutputProfile] {
        try await records.profiles().map { try $0.profile }
    }

    public func profile(id: String) async throws -> OutputProfile? {
        try await records.profile(id: id).map { try $0.profile }
    }

    /// Stores a new profile; a profile with its id or device id must not exist.
    public func insert(_ profile: OutputProfile) async throws {
        guard OutputProfile.isValidID(profile.id) else {
            throw OutputError(.invalid, "'\(profile.id)' is not a profile id: use 1 to 32 of a-z, 0-9 and '-'")
        }
        try Self.checkName(profile)
        guard try await records.insertProfile(OutputProfileRow(profile)) else {
            throw OutputError(.conflict, "a profile '\(profile.id)' exists already; change it or pick another id")
        }
    }

    /// Replaces a profile's settings (its id, device id and key stay). Numbers already given stay.
    public func update(_ profile: OutputProfile) async throws {
        try Self.checkName(profile)
        guard try await records.updateProfileSettings(OutputProfileRow(profile)) else {
            throw OutputError(.notFound, "no output profile is called '\(profile.id)'; list them with `tuner outputs`")
        }
    }

    /// Sets how live channels reach a profile's players (one of ``OutputProfile/streamProfiles``).
    public func setStreamProfile(_ value: String, ofProfile id: String) async throws {
        guard OutputProfile.streamProfiles.contains(value) else {
            throw OutputError(.invalid, "a stream profile is direct, remux or transcode")
        }
        try await records.setStreamProfile(value, ofProfile: id)
    }

    public func removeProfile(id: String) async throws {
        guard try await records.removeProfile(id: id) else {
            throw OutputError(.notFound, "no output profile is called '\(id)'; list them with `tuner outputs`")
        }
    }

    /// Makes the `default` profile (every live channel) when the data folder has no profile.
    @discardableResult
    public func ensureDefaultProfile() async throws -> OutputProfile {
        if let existing = try await profile(id: OutputProfile.defaultID) { return existing }
        let profile = OutputProfile(
            id: OutputProfile.defaultID, name: "Tuner", deviceID: HDHomeRunDeviceID.random(),
            accessKey: Self.randomKey())
        do {
            try await insert(profile)
        } catch let error as OutputError where error.kind == .conflict {
            // Another process (the CLI beside the server) made it first.
        }
        return try await self.profile(id: OutputProfile.defaultID) ?? profile
    }

    /// PostgreSQL's text cannot hold NUL, so neither engine takes one: a profile stores the same in
    /// both (the other text columns are JSON, where NUL is escaped, or generated).
    static func checkName(_ profile: OutputProfile) throws {
        guard !profile.name.unicodeScalars.contains("\u{0}") else {
            throw OutputError(.invalid, "a profile's name cannot hold a NUL character")
        }
    }

    /// A new secret for a profile: 24 hex digits (96 bits).
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<3).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined().prefix(24)
            .description
    }

    // MARK: Lineups

    /// The channels of a profile, in output order, each with its number.
    public func lineup(profileID: String) async throws -> [OutputChannel] {
        guard let profile = try await profile(id: profileID) else {
            throw OutputError(.notFound, "no output profile is called '\(profileID)'; list them with `tuner outputs`")
        }
        return try await lineup(profile).channels
    }

    /// Stores the numbers a profile's new channels got, so they keep them from now on.
    public func recordNumbers(profileID: String) async throws {
        guard let profile = try await profile(id: profileID) else { return }
        let added = try await lineup(profile).added
        guard !added.isEmpty else { return }
        try await records.addNumbers(added, profileID: profile.id)
        logger.debug("numbered \(added.count) new channels", metadata: ["profile": "\(profile.id)"])
    }

    /// Records the numbers of every profile (after an import).
    public func recordNumbersOfEveryProfile() async throws {
        for profile in try await profiles() { try await recordNumbers(profileID: profile.id) }
    }

    func lineup(_ profile: OutputProfile) async throws -> (channels: [OutputChannel], added: [OutputChannelKey: Int]) {
        let (members, numbers, added) = try await members(of: profile)
        var channels: [OutputChannel] = []
        channels.reserveCapacity(members.count)
        for (index, item) in members.enumerated() {
            guard let number = numbers[index] else { continue }
            guard let channel = Self.shown(item, number: number, profile: profile) else { continue }
            channels.append(channel)
        }
        // Players list by number; the order rule decided who got which number first.
        channels.sort { $0.number < $1.number }
        return (channels, added)
    }

    /// A channel as players are told about it: the editor's name, group and logo instead of the
    /// playlist's; nil for a disabled one.
    static func shown(_ item: CatalogItem, number: Int, profile: OutputProfile) -> OutputChannel? {
        let edit = profile.edits.isEmpty ? nil : profile.edits[item.identity]
        if edit?.disabled == true { return nil }
        let name = profile.renames.isEmpty ? item.name : profile.renames[item.identity] ?? item.name
        var channel = OutputChannel(number: number, name: name, item: item)
        if let group = edit?.group { channel.item.group = group }
        if let logo = edit?.logo { channel.item.logo = logo }
        return channel
    }

    /// The entries a profile selects (disabled ones too), in the order its rule numbers them, with
    /// their numbers (nil past the last free one) and the numbers new ones were given.
    func members(of profile: OutputProfile) async throws -> (
        items: [CatalogItem], numbers: [Int?], added: [OutputChannelKey: Int]
    ) {
        let selected = try await select(profile.selection, order: profile.numbering.order)
        let existing = try await numbers(profileID: profile.id)
        let (numbers, added) = profile.numbering.assign(
            selected.map {
                (key: OutputChannelKey(kind: $0.kind.rawValue, identity: $0.identity), playlistNumber: $0.number)
            },
            existing: existing)
        return (selected, numbers, added)
    }

    /// Applies a lineup editor's change to a profile, all of it or (throwing) none, and returns
    /// the profile as it is then.
    public func changeLineup(profileID: String, _ change: OutputLineupChange) async throws -> OutputProfile {
        try change.check()
        guard var profile = try await profile(id: profileID) else {
            throw OutputError(.notFound, "no output profile is called '\(profileID)'; list them with `tuner outputs`")
        }
        change.applySettings(to: &profile)
        try Self.checkSize(profile.selection)
        // Which channels the lineup holds once changed: read from the catalog before the write,
        // which then sees the profile as it is at that moment.
        let selected = try await select(profile.selection, order: profile.numbering.order)
        let members = selected.map {
            (key: OutputChannelKey(kind: $0.kind.rawValue, identity: $0.identity), playlistNumber: $0.number)
        }
        let numbering = profile.numbering
        let changed = try await records.changeLineup(profileID: profileID) { row, numbers in
            var current = try row.profile
            change.applySettings(to: &current)
            let new = try change.applyNumbers(members: members, numbering: numbering, numbers: numbers)
            return LineupRows(profile: try OutputProfileRow(current), numbers: new)
        }
        guard let changed else {
            throw OutputError(.notFound, "no output profile is called '\(profileID)'; list them with `tuner outputs`")
        }
        logger.info(
            "lineup changed",
            metadata: [
                "profile": "\(profileID)", "added": "\(change.add.count)", "removed": "\(change.remove.count)",
                "edited": "\(change.edits.count)",
            ])
        return try changed.profile
    }

    /// What the lineup editor lists for a profile: every live channel once (the first source's
    /// entry for an identity several carry), the lineup's first by number, then the others in
    /// catalogue order.
    public func editorEntries(profileID: String) async throws -> (profile: OutputProfile, entries: [OutputLineupEntry])
    {
        guard let profile = try await profile(id: profileID) else {
            throw OutputError(.notFound, "no output profile is called '\(profileID)'; list them with `tuner outputs`")
        }
        let kinds = profile.selection.kinds.map(CatalogItemKind.init(rawValue:))
        let read = try await catalog.lineupItems(kinds: kinds)
        let selected = try await select(profile.selection, order: profile.numbering.order, from: read)
        let existing = try await numbers(profileID: profile.id)
        let (numbers, _) = profile.numbering.assign(
            selected.map {
                (key: OutputChannelKey(kind: $0.kind.rawValue, identity: $0.identity), playlistNumber: $0.number)
            },
            existing: existing)
        var entries: [OutputLineupEntry] = []
        var members = Set<String>()
        for (index, item) in selected.enumerated() where item.kind == .live {
            guard let number = numbers[index] else { continue }
            members.insert(item.identity)
            entries.append(OutputLineupEntry(item: item, number: number))
        }
        entries.sort { ($0.number ?? 0) < ($1.number ?? 0) }
        var seen = members
        for entry in read where entry.item.kind == .live && seen.insert(entry.item.identity).inserted {
            entries.append(OutputLineupEntry(item: entry.item, number: nil))
        }
        return (profile, entries)
    }

    // MARK: Logos

    /// Keeps an uploaded logo under its content's SHA-256; `created` is false when it was there.
    public func saveLogo(_ bytes: [UInt8]) async throws -> (logo: ChannelLogo, created: Bool) {
        guard !bytes.isEmpty, bytes.count <= ChannelLogo.largest else {
            throw OutputError(.invalid, "a logo must have 1 byte to 1 MiB; make the image smaller")
        }
        guard let format = ChannelLogo.format(of: bytes) else {
            throw OutputError(.invalid, "a logo must be a PNG, JPEG, GIF or WebP image (SVG and others are refused)")
        }
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        guard let logo = ChannelLogo(digest: digest, format: format) else {
            throw OutputError(.invalid, "the logo's digest could not be made")
        }
        let created = try await records.insertLogo(
            name: logo.name, bytes: bytes, createdAt: Date().timeIntervalSince1970)
        return (logo, created)
    }

    /// An uploaded logo's bytes, or nil.
    public func logoBytes(_ logo: ChannelLogo) async throws -> [UInt8]? {
        try await records.logo(name: logo.name)
    }

    /// Refuses a selection listing more identities than a profile keeps.
    static func checkSize(_ selection: OutputSelection) throws(OutputError) {
        guard selection.include.count <= OutputLineupChange.largest,
            selection.exclude.count <= OutputLineupChange.largest
        else {
            throw OutputError(
                .invalid, "a profile may include or exclude at most \(OutputLineupChange.largest) channels by name")
        }
    }

    func numbers(profileID: String) async throws -> [OutputChannelKey: Int] {
        try await records.numbers(profileID: profileID)
    }

    /// The items a selection shows, once each (the first source's entry for an identity several
    /// sources carry), in the order new numbers are given.
    func select(
        _ selection: OutputSelection, order: OutputNumbering.Order, from read: [LineupItem]? = nil
    ) async throws -> [CatalogItem] {
        let kinds = selection.kinds.map(CatalogItemKind.init(rawValue:))
        var entries: [LineupItem]
        if let read { entries = read } else { entries = try await catalog.lineupItems(kinds: kinds) }
        var searchHits: Set<Int64>?
        if let search = selection.search, !search.trimmingCharacters(in: .whitespaces).isEmpty {
            var hits = Set<Int64>()
            for kind in kinds {
                let page = try await catalog.items(CatalogItemQuery(kind: kind, search: search, limit: 1_000_000))
                hits.formUnion(page.items.map(\.id))
            }
            searchHits = hits
        }
        let sources = Set(selection.sourceIDs)
        let groups = Set(selection.groups)
        let included = Set(selection.include)
        let excluded = Set(selection.exclude)
        entries = entries.filter { entry in
            let item = entry.item
            if excluded.contains(item.identity) { return false }
            if included.contains(item.identity) { return true }
            if selection.pickedOnly { return false }
            if !sources.isEmpty && !sources.contains(item.sourceID) { return false }
            if !groups.isEmpty && !groups.contains(item.group ?? "") { return false }
            if selection.favouritesOnly && entry.favouritePosition == nil { return false }
            if let searchHits, !searchHits.contains(item.id) { return false }
            return true
        }
        switch order {
        case .playlist: break
        case .favourites:
            // A stable sort keeps catalogue order among non-favourites.
            entries = entries.enumerated().sorted { a, b in
                switch (a.element.favouritePosition, b.element.favouritePosition) {
                case (let x?, let y?): return x != y ? x < y : a.offset < b.offset
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return a.offset < b.offset
                }
            }.map(\.element)
        case .name:
            entries = entries.enumerated().sorted { a, b in
                let order = a.element.item.name.localizedStandardCompare(b.element.item.name)
                return order == .orderedSame ? a.offset < b.offset : order == .orderedAscending
            }.map(\.element)
        }
        var seen = Set<OutputChannelKey>(minimumCapacity: entries.count)
        return entries.compactMap { entry in
            seen.insert(OutputChannelKey(kind: entry.item.kind.rawValue, identity: entry.item.identity)).inserted
                ? entry.item : nil
        }
    }
}
