import Catalog
import Foundation
import MediaFormats
import Synchronization

/// The user's sources and what they bring: adding one (an M3U playlist, an Xtream account, an
/// XMLTV guide), refreshing, listing and removing them.
///
/// A feature object shared by the HTTP API and the CLI's offline commands, so that what a valid
/// source is, and what a refresh imports, is decided once. `Sendable`: its parts are.
public final class Library: Sendable {
    public let catalog: any CatalogStore
    let importer: CatalogImporter
    /// Where local files may be read from. Nil trusts every local path: the CLI acts for the
    /// user at the keyboard, while the API answers whoever reaches it.
    let localFiles: LocalFileAccess?
    /// Seconds between scheduled refreshes of a source that sets none.
    let defaultRefreshInterval: TimeInterval
    /// Where sources may be fetched from.
    let fetchPolicy: FetchPolicy
    /// Runs after each import of a source's channels (output profiles record new numbers).
    let afterImport: @Sendable () async -> Void
    /// Probes channels' streams and records which are online (nil where only imports are needed).
    let checker: StreamChecker?
    private let feed = ChangeFeed<ImportChange>()

    /// What a refresh through the library reports as it goes, for the events hub and the CLI.
    public enum ImportChange: Sendable, Equatable {
        /// At most four a second per source.
        case progress(CatalogImportProgress)
        case finished(sourceID: Int64, counts: CatalogImportCounts)
        /// Why it failed, without secrets; the source keeps its previous items.
        case failed(sourceID: Int64, reason: String)
        /// A guide was imported (an XMLTV source, or a playlist's guide URLs): what shows
        /// programmes should reload them.
        case guideUpdated(sourceID: Int64, counts: GuideImportCounts)
        /// The source after a refresh (without secrets): its status, last refresh and error, so
        /// a page can say when the next one is due.
        case sourceChanged(CatalogSource)
    }

    /// Every refresh's progress and result from now on.
    public func changes() -> AsyncStream<ImportChange> { feed.subscribe() }

    public init(
        catalog: any CatalogStore, importer: CatalogImporter, localFiles: LocalFileAccess?,
        defaultRefreshInterval: TimeInterval,
        fetchPolicy: FetchPolicy = .any, afterImport: @escaping @Sendable () async -> Void = {},
        checker: StreamChecker? = nil
    ) {
        self.checker = checker
        self.catalog = catalog
        self.importer = importer
        self.localFiles = localFiles
        self.defaultRefreshInterval = defaultRefreshInterval
        self.fetchPolicy = fetchPolicy
        self.afterImport = afterImport
    }

    /// A source to add, as a user describes it.
    public struct NewSource: Sendable, Codable, Equatable {
        /// An http(s) URL, or a local file (a path or a `file:` URL).
        public var location: String
        public var name: String?
        /// `m3u`, `xmltv` or `xtream`; nil means M3U, or Xtream for a pasted panel URL.
        public var kind: String?
        public var username: String?
        public var password: String?
        public var epgURLs: [String]?
        /// Seconds between scheduled refreshes.
        public var refreshInterval: Double?

        public init(
            location: String, name: String? = nil, kind: String? = nil, username: String? = nil,
            password: String? = nil,
            epgURLs: [String]? = nil, refreshInterval: Double? = nil
        ) {
            self.location = location
            self.name = name
            self.kind = kind
            self.username = username
            self.password = password
            self.epgURLs = epgURLs
            self.refreshInterval = refreshInterval
        }
    }

    /// The sources, without their secrets.
    public func sources() async throws -> [CatalogSource] {
        try await catalog.sources().map(\.forClients)
    }

    /// Checks `new` and stores it (not imported yet: see ``refresh(sourceID:)``). Returns the
    /// source without its secrets.
    public func addSource(_ new: NewSource) async throws -> CatalogSource {
        try await catalog.addSource(try draft(for: new)).forClients
    }

    /// The draft `new` describes, or why it cannot be a source.
    public func draft(for new: NewSource) throws -> CatalogSourceDraft {
        let lowered = new.location.lowercased()
        // A pasted panel URL (`…/player_api.php?username=…`) is an Xtream account even unsaid.
        let pastedPanel = new.kind == nil && lowered.contains("/player_api.php")
        let kindText = new.kind ?? (pastedPanel || new.username != nil || new.password != nil ? "xtream" : "m3u")
        let kind = CatalogSourceKind(rawValue: kindText)
        guard [CatalogSourceKind.m3u, .xmltv, .xtream].contains(kind) else {
            throw FeatureError(.invalid, "'\(kindText)' is not a kind of source: use m3u, xmltv or xtream")
        }
        var interval = defaultRefreshInterval
        if let requested = new.refreshInterval {
            guard requested > 0, requested.isFinite else {
                throw FeatureError(.invalid, "the refresh interval must be a positive number of seconds")
            }
            interval = requested
        }
        let epgURLs = try (new.epgURLs ?? []).map { try checkedLocation($0) }
        if kind == .xtream {
            guard Self.isFetchable(new.location) else {
                throw FeatureError(.invalid, "an Xtream account's location is its server URL, such as http://host:8080")
            }
            try checkPolicy(new.location)
            guard
                let credentials = XtreamCredentials.parse(new.location, username: new.username, password: new.password)
            else {
                throw FeatureError(
                    .invalid,
                    """
                    an Xtream account needs 'username' and 'password' (--user and --password on the command \
                    line), or a pasted player_api.php URL with both
                    """
                )
            }
            // The server alone as the location (and the name's origin): a pasted URL's query holds the password.
            return CatalogSourceDraft(
                kind: .xtream, name: new.name, location: credentials.server, xtream: credentials, epgURLs: epgURLs,
                refreshInterval: interval)
        }
        return CatalogSourceDraft(
            kind: kind, name: new.name, location: try checkedLocation(new.location), epgURLs: epgURLs,
            refreshInterval: interval)
    }

    /// What a refresh imported.
    public struct Refreshed: Sendable, Codable {
        /// The source after the refresh, without its secrets.
        public var source: CatalogSource?
        public var counts: CatalogImportCounts
        /// The source's guide, imported after its items when it has guide URLs.
        public var guide: GuideImportCounts?
        /// Why the guide failed (the items were imported; the previous guide is kept).
        public var guideError: String?
    }

    /// Imports source `id` again: its items, then its guide when it has guide URLs (a guide that
    /// fails keeps the previous one and is reported, not thrown).
    public func refresh(sourceID id: Int64) async throws -> Refreshed {
        guard let source = try await catalog.source(id: id) else { throw CatalogError.sourceNotFound(id) }
        do {
            let refreshed = try await refresh(source)
            await publishSource(id: id)
            return refreshed
        } catch {
            // The source's new status (failed, with the reason) goes out too.
            await publishSource(id: id)
            throw error
        }
    }

    private func publishSource(id: Int64) async {
        if let source = try? await catalog.source(id: id) { feed.publish(.sourceChanged(source.forClients)) }
    }

    private func refresh(_ source: CatalogSource) async throws -> Refreshed {
        let id = source.id
        let now = Int64(Date().timeIntervalSince1970)
        do {
            try checkLocalFiles(source.kind == .xtream ? [] : [source.location])
        } catch {
            let reason = SecretRedactor.redact("\(error)")
            try? await catalog.setSourceStatus(id: id, status: .failed, error: reason, refreshedAt: nil)
            feed.publish(.failed(sourceID: id, reason: reason))
            throw error
        }
        if source.kind == .xmltv {
            let guide: GuideImportCounts
            do {
                guide = try await importer.refreshGuide(sourceID: id, now: now, progress: throttledProgress())
            } catch {
                feed.publish(.failed(sourceID: id, reason: SecretRedactor.redact("\(error)")))
                throw error
            }
            let counts = CatalogImportCounts(live: guide.channels)
            feed.publish(.finished(sourceID: id, counts: counts))
            feed.publish(.guideUpdated(sourceID: id, counts: guide))
            return Refreshed(source: try await catalog.source(id: id)?.forClients, counts: counts, guide: guide)
        }
        let counts: CatalogImportCounts
        do {
            counts = try await importer.refresh(sourceID: id, progress: throttledProgress())
        } catch {
            feed.publish(.failed(sourceID: id, reason: SecretRedactor.redact("\(error)")))
            throw error
        }
        feed.publish(.finished(sourceID: id, counts: counts))
        await afterImport()
        var refreshed = Refreshed(source: try await catalog.source(id: id)?.forClients, counts: counts)
        if let urls = refreshed.source?.epgURLs, !urls.isEmpty {
            do {
                try checkLocalFiles(urls)
                let guide = try await importer.refreshGuide(sourceID: id, now: Int64(Date().timeIntervalSince1970))
                refreshed.guide = guide
                feed.publish(.guideUpdated(sourceID: id, counts: guide))
            } catch {
                refreshed.guideError = SecretRedactor.redact("\(error)")
            }
        }
        return refreshed
    }

    /// Marks failed the sources a stopped server left `refreshing` (the scheduler skips those for
    /// ever); returns how many. The server that now owns the data folder calls it once at start.
    public func recoverInterruptedRefreshes() async throws -> Int {
        try await catalog.recoverInterruptedRefreshes()
    }

    /// A progress callback that passes on at most four reports a second (an import reports every
    /// batch), and always the last.
    private func throttledProgress() -> @Sendable (CatalogImportProgress) -> Void {
        let feed = feed
        let gate = ProgressGate()
        return { progress in
            if gate.isDue(finished: progress.phase == .finished) { feed.publish(.progress(progress)) }
        }
    }

    /// Changes what a user may change of source `id`: its name, guide URLs and refresh interval.
    /// Returns the source without its secrets.
    public func updateSource(
        id: Int64, name: String?, epgURLs: [String]?, refreshInterval: Double?, maxConnections: Int? = nil
    ) async throws -> CatalogSource {
        guard var source = try await catalog.source(id: id) else { throw CatalogError.sourceNotFound(id) }
        if let maxConnections {
            guard (0...1000).contains(maxConnections) else {
                throw FeatureError(.invalid, "maxConnections must be from 1 to 1000 (0 clears it)")
            }
            source.maxConnections = maxConnections == 0 ? nil : maxConnections
        }
        if let name { source.name = name }
        if let epgURLs { source.epgURLs = try epgURLs.map { try checkedLocation($0) } }
        if let refreshInterval {
            guard refreshInterval > 0, refreshInterval.isFinite else {
                throw FeatureError(.invalid, "the refresh interval must be a positive number of seconds")
            }
            source.refreshInterval = refreshInterval
        }
        try await catalog.updateSource(source)
        return (try await catalog.source(id: id) ?? source).forClients
    }

    /// Removes source `id` with everything it brought.
    public func removeSource(id: Int64) async throws {
        try await catalog.removeSource(id: id)
    }

    /// `location` as the importer may use it: an http(s) URL as it is, or a local file (a path or
    /// a `file:` URL), resolved and, for the API, inside the files root.
    func checkedLocation(_ location: String) throws -> String {
        if Self.isFetchable(location) {
            try checkPolicy(location)
            return location
        }
        var path = location
        if location.lowercased().hasPrefix("file:") {
            guard let url = URL(string: location), url.isFileURL else {
                throw FeatureError(.invalid, "'\(location)' is not a file URL Tuner can read")
            }
            path = url.path
        }
        guard let localFiles else {
            // The CLI: a relative path is relative to where the user is.
            let resolved = URL(fileURLWithPath: path).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw FeatureError(.invalid, "no such file: \(resolved)")
            }
            return try regularFile(resolved)
        }
        guard path.hasPrefix("/") else {
            throw FeatureError(.invalid, "'\(location)' is neither an http(s) URL nor an absolute path to a local file")
        }
        let resolved: String
        do {
            resolved = try localFiles.fileToRead(path)
        } catch {
            throw FeatureError(.forbidden, error.description)
        }
        return try regularFile(resolved)
    }

    /// `path` when it is a regular file: a device, FIFO, socket or folder (or a link to one) is
    /// refused by its type, whatever its name, for the command line's paths too.
    private func regularFile(_ path: String) throws -> String {
        do {
            try LocalSourceFile.check(path)
        } catch {
            throw FeatureError(.invalid, "\(error)")
        }
        return path
    }

    /// For the server, a source's local files are checked again at every refresh, not only when
    /// they were named: inside the files root and regular. A location stored before this rule (a
    /// guide a playlist named) or a link changed since is refused; the command line, with no files
    /// root, trusts its user.
    private func checkLocalFiles(_ locations: [String]) throws {
        guard localFiles != nil else { return }
        for location in locations where !Self.isFetchable(location) {
            _ = try checkedLocation(location)
        }
    }

    private func checkPolicy(_ location: String) throws {
        guard let url = URL(string: location), fetchPolicy.permits(url) else {
            throw FeatureError(.forbidden, fetchPolicy.refusal(location))
        }
    }

    /// An absolute http or https URL with a host.
    public static func isFetchable(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return false }
        return true
    }
}

/// Lets a report through when the last one is 250 ms old, or when it is the last: an import
/// reports every batch, and the events need four a second at most.
private final class ProgressGate: Sendable {
    private let last = Mutex(ContinuousClock.now - .seconds(1))

    func isDue(finished: Bool) -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            guard finished || last.duration(to: now) >= .milliseconds(250) else { return false }
            last = now
            return true
        }
    }
}
