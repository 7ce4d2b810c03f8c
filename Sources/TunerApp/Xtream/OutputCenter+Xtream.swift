import Catalog
import Foundation
import Outputs
import Streaming
import TunerAPI

/// The Xtream Codes view of the outputs: logins (output users) and the channels, films and series
/// of their profiles.
extension OutputCenter {
    /// The login, or nil when the name or password is wrong. `client` (the caller's address)
    /// decides whose turn the password hash waits for.
    public func login(_ username: String, password: String, client: String) async throws(FeatureError) -> OutputUser? {
        try await mapped { try await store.authenticate(username, password: password, client: client) }
    }

    /// How many password hashes logins have run (real and dummy): what a throttled try never costs.
    public var passwordHashesRun: Int { store.passwordHashes.hashesRun }

    /// What a login sees: its profiles merged into one lineup, a channel in several profiles once,
    /// one number per channel across the login (``OutputNumbering/merged(_:)``).
    public func lineup(of user: OutputUser) async throws(FeatureError) -> [OutputChannel] {
        var lineups: [[OutputChannel]] = []
        for id in user.profileIDs {
            // A profile removed since the user was made shows nothing rather than failing the login.
            guard let lineup = try? await lineup(profileID: id) else { continue }
            lineups.append(lineup)
        }
        return OutputNumbering.merged(lineups)
    }

    /// The episodes stored for `series` (none loaded from a panel here: `get.php` lists what the
    /// catalog holds rather than asking a provider once per series), by series id.
    public func storedEpisodes(of series: [OutputChannel]) async throws(FeatureError) -> [Int64: [CatalogEpisode]] {
        try await mapped {
            var episodes: [Int64: [CatalogEpisode]] = [:]
            for channel in series where channel.item.kind == .series {
                episodes[channel.item.id] = try await catalog.episodes(ofSeries: channel.item.id)
            }
            return episodes
        }
    }

    /// The entry with catalog id `itemID` when the login sees it.
    public func entry(_ itemID: Int64, of user: OutputUser) async throws(FeatureError) -> OutputChannel {
        guard let channel = try await lineup(of: user).first(where: { $0.item.id == itemID }) else {
            throw FeatureError(.notFound, "no stream \(itemID) for this login")
        }
        return channel
    }

    /// The upstream of a live channel or film (`episode` false) or of an episode of a series the
    /// login sees (`episode` true, `id` the episode's id).
    public func xtreamStream(_ id: Int64, episode: Bool, of user: OutputUser) async throws(FeatureError) -> StreamLink {
        let url: String
        let headers: [CatalogHeader]
        if episode {
            guard let found = try await mapped({ try await catalog.episode(id: id) }) else {
                throw FeatureError(.notFound, "no episode \(id)")
            }
            _ = try await entry(found.seriesID, of: user)
            (url, headers) = (found.url, found.headers)
        } else {
            let channel = try await entry(id, of: user)
            guard let text = channel.item.url else { throw FeatureError(.notPlayable, "stream \(id) has no URL") }
            (url, headers) = (text, channel.item.headers)
        }
        guard let parsed = URL(string: url) else { throw FeatureError(.notPlayable, "stream \(id) has no usable URL") }
        return StreamLink(url: parsed, headers: headers.map { StreamHeader(name: $0.name, value: $0.value) })
    }

    /// The Xtream answers for `user`, with URLs on `base`.
    public func xtream(for user: OutputUser, password: String, base: String) -> XtreamOutput {
        XtreamOutput(base: base, username: user.username, password: password, logo: logoLink(base: base))
    }

    /// A series' episodes, loaded from its Xtream panel the first time (as the web app does).
    public func episodes(ofSeries id: Int64) async throws(FeatureError) -> [CatalogEpisode] {
        try await mapped {
            if let importer { return try await importer.episodes(seriesItemID: id) }
            return try await catalog.episodes(ofSeries: id)
        }
    }

    /// A film's details, from its Xtream panel the first time; nil when it has none (a playlist's film).
    public func movieDetails(_ id: Int64) async throws(FeatureError) -> CatalogMovieDetails? {
        if let stored = try await mapped({ try await catalog.movieDetails(itemID: id) }) { return stored }
        return try? await importer?.movieDetails(itemID: id)
    }

    /// A channel's programmes from six hours back to two weeks ahead.
    public func programmes(of channel: OutputChannel) async throws(FeatureError) -> [GuideProgramme] {
        let now = now()
        return try await mapped {
            try await catalog.guide(itemIDs: [channel.item.id], from: now - 6 * 3600, to: now + 14 * 86_400)[
                channel.item.id] ?? []
        }
    }

    /// The XMLTV guide of a login's live channels and films (series play by episode and have no
    /// guide), a piece at a time, with the login's ids.
    public func guide(of user: OutputUser, base: String, write: (String) async throws -> Void) async throws {
        let channels = try await lineup(of: user).filter { $0.item.kind != .series }
        try await guide(channels: channels, base: base, write: write)
    }

    // MARK: Users

    public func users() async throws(FeatureError) -> [OutputUser] {
        try await mapped { try await store.users() }
    }

    /// Adds a login for the profiles named (the default profile when none is).
    public func addUser(_ request: OutputUserSettings) async throws(FeatureError) -> OutputUser {
        guard let name = request.username, let password = request.password else {
            throw FeatureError(.invalid, "a new user needs \"username\" and \"password\"")
        }
        var user = OutputUser(
            username: name, profileIDs: request.profiles ?? [OutputProfile.defaultID],
            maxConnections: try Self.checkedLimit(request.maxConnections) ?? 1)
        user.expiresAt = try Self.checkedExpiry(request.expiresAt) ?? nil
        if let streamProfile = request.streamProfile {
            user.streamProfile = try Self.checkedStreamProfile(streamProfile)
        }
        user.isDisabled = request.disabled ?? false
        let made = user
        try await mapped {
            try await store.insertUser(made, password: password)
            try await store.setStreamProfile(made.streamProfile, ofUser: made.username)
            if made.isDisabled { try await store.setDisabled(true, ofUser: made.username) }
        }
        return made
    }

    public func updateUser(_ name: String, _ request: OutputUserSettings) async throws(FeatureError) -> OutputUser {
        guard var user = try await mapped({ try await store.user(named: name) }) else {
            throw FeatureError(.notFound, "no user is called '\(name)'; list them with `tuner users`")
        }
        if let profiles = request.profiles { user.profileIDs = profiles }
        if let limit = try Self.checkedLimit(request.maxConnections) { user.maxConnections = limit }
        if let expiry = try Self.checkedExpiry(request.expiresAt) { user.expiresAt = expiry }
        if let streamProfile = request.streamProfile {
            user.streamProfile = try Self.checkedStreamProfile(streamProfile)
        }
        if let disabled = request.disabled { user.isDisabled = disabled }
        let changed = user
        try await mapped {
            try await store.updateUser(changed, password: request.password)
            try await store.setStreamProfile(changed.streamProfile, ofUser: changed.username)
            try await store.setDisabled(changed.isDisabled, ofUser: changed.username)
        }
        return changed
    }

    public func removeUser(_ name: String) async throws(FeatureError) {
        try await mapped { try await store.removeUser(named: name) }
    }

    /// A requested expiry: nil when none was asked for, `.some(nil)` for 0 (never expires).
    static func checkedExpiry(_ seconds: Int64?) throws(FeatureError) -> Int64?? {
        guard let seconds else { return nil }
        if seconds == 0 { return .some(nil) }
        guard (1...OutputUser.latestExpiry).contains(seconds) else {
            throw FeatureError(.invalid, "expiresAt must be 0 (never) or seconds since 1970 before the year 10000")
        }
        return .some(seconds)
    }

    static func checkedLimit(_ limit: Int?) throws(FeatureError) -> Int? {
        guard let limit else { return nil }
        guard (1...64).contains(limit) else { throw FeatureError(.invalid, "maxConnections must be from 1 to 64") }
        return limit
    }
}
