import Configuration
import Foundation
import LiveTV
import Logging
import MediaFormats
import SystemPackage
import TunerStorage

extension TunerConfiguration {
    /// Reads every setting once, from four layers: command-line flags override `TUNER_*`
    /// environment variables, which override the configuration file, which overrides the defaults.
    ///
    /// - `flags`: values by setting name (``Setting``); repeatable flags joined with commas.
    /// - The file is `flags["config"]`, else `TUNER_CONFIG`, else `<data folder>/tuner.json` when it
    ///   exists. A file that was named must exist; a file that does not parse is an error. Its keys
    ///   are the setting names (`{"port": 8080, "cacheSize": "4GiB", "publicHosts": ["tv.lan"]}`).
    ///
    /// A value that cannot be used throws a ``FeatureError`` of kind `invalid` naming the flag, the variable and
    /// the file key, and what the setting takes.
    public static func load(
        flags: [String: String] = [:], environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> TunerConfiguration {
        let flagValues = Dictionary(
            uniqueKeysWithValues: flags.map {
                (
                    AbsoluteConfigKey([$0.key]),
                    ConfigValue(
                        .string($0.value), isSecret: [Setting.token, .database].map(\.rawValue).contains($0.key))
                )
            }
        )
        // TUNER_CACHE_SIZE is the environment's name of the setting `cacheSize`.
        let environmentProvider = EnvironmentVariablesProvider(
            environmentVariables: environment,
            secretsSpecifier: .specific(["TUNER_TOKEN", "TUNER_DATABASE", "PGPASSWORD"])
        ).prefixKeys(with: ConfigKey("tuner"))
        let flagProvider = InMemoryProvider(name: "flags", values: flagValues)
        let early = SettingsReader(reader: ConfigReader(providers: [flagProvider, environmentProvider]))

        var providers: [any ConfigProvider] = [flagProvider, environmentProvider]
        let settingsFile: String
        if let named = try early.text(.config) {
            providers.append(try await Self.fileProvider(path: named, allowMissing: false))
            settingsFile = named
        } else {
            let data = try early.text(.data) ?? TunerConfiguration().dataDirectory
            settingsFile = data + "/tuner.json"
            providers.append(try await Self.fileProvider(path: settingsFile, allowMissing: true))
        }
        var settings = SettingsReader(reader: ConfigReader(providers: providers))
        settings.logLevelFallback = environment["LOG_LEVEL"]
        settings.databasePasswordFallback = environment["PGPASSWORD"]
        var configuration = try settings.configuration()
        configuration.settingsFile = FileManager.default.fileExists(atPath: settingsFile) ? settingsFile : nil
        return configuration
    }

    private static func fileProvider(path: String, allowMissing: Bool) async throws -> any ConfigProvider {
        do {
            return try await FileProvider<JSONSnapshot>(filePath: FilePath(path), allowMissing: allowMissing)
        } catch {
            throw FeatureError.invalid(
                """
                the configuration file \(path) could not be read: \(error). Fix or remove it, or name another \
                with --config.
                """
            )
        }
    }

    /// The names of the settings: the file's keys and, as `--kebab-case` and `TUNER_SNAKE_CASE`,
    /// the flags' and variables'.
    public enum Setting: String, CaseIterable, Sendable {
        case config, host, port, data, token, logLevel, database, databasePasswordFile
        case cacheSize, cacheMinFree, cacheIgnoreParams, upstreamTimeout, prefetchSegments
        case uploadMaxSize, uploadExpiry, uploadOrigins
        case publicHosts, allowFetch, allowedOrigins, filesRoots, idleTimeout, trustedProxies
        case transfersMaxActive, transfersPerHost, transfersStallTimeout, transfersSyncMs
        case catalogCheckInterval, catalogRefreshInterval
        case importMaxSize, importTimeout, providerAnswerMaxSize
        case hdhomerunDiscoveryPort, hdhomerunHttpPort, hdhomerunOpen, baseUrl, ssdpPort, guidePlaceholders
        case liveBuffer, liveLinger, liveStallTimeout, livePreempt, transcodeArgs
        case nodeId, advertise, heartbeatInterval, nodeTimeout, transfersClaimLifetime, downloadsDir
        case recordingsDir, timeshift, timeshiftWindow, timeshiftMaxSize
        case backupDir, backupEvery, backupKeep

        /// `cacheSize` → `TUNER_CACHE_SIZE`.
        public var environmentName: String {
            "TUNER_"
                + rawValue.reduce(into: "") { name, character in
                    if character.isUppercase { name += "_" }
                    name += character.uppercased()
                }
        }

        /// `cacheSize` → `--cache-size`.
        public var flagName: String {
            "--"
                + rawValue.reduce(into: "") { name, character in
                    if character.isUppercase { name += "-" }
                    name += character.lowercased()
                }
        }

        /// How an error names the setting: every place it can be set.
        var names: String { "\(flagName) (\(environmentName), \(rawValue) in the file)" }
    }
}

/// Reads the settings from a `ConfigReader`, each as text parsed by Tuner's own parsers (sizes like
/// `1GiB`, durations like `24h`), so a flag, a variable and a file value mean the same.
struct SettingsReader {
    let reader: ConfigReader
    /// The conventional `LOG_LEVEL`, used when `TUNER_LOG_LEVEL` and the others say nothing.
    var logLevelFallback: String?
    /// The conventional `PGPASSWORD`: a PostgreSQL password when the URL and a file give none.
    var databasePasswordFallback: String?

    init(reader: ConfigReader) { self.reader = reader }

    /// The setting as text: a string, or a JSON number or list of strings from the file (a list
    /// joined with commas). Nil when no layer sets it.
    func text(_ setting: TunerConfiguration.Setting) throws -> String? {
        let key = ConfigKey(setting.rawValue)
        if let text = reader.string(forKey: key, isSecret: setting == .token || setting == .database) {
            return text
        }
        if let number = reader.int(forKey: key) { return String(number) }
        if let number = reader.double(forKey: key) { return String(number) }
        if let list = reader.stringArray(forKey: key) {
            guard !list.contains(where: { $0.contains(",") }) else {
                throw FeatureError.invalid("\(setting.names): an item of the list contains a comma")
            }
            return list.joined(separator: ",")
        }
        return nil
    }

    func list(_ setting: TunerConfiguration.Setting) throws -> [String]? {
        try text(setting).map(TunerConfiguration.list)
    }

    func integer<T: FixedWidthInteger>(
        _ setting: TunerConfiguration.Setting, in range: ClosedRange<T>, _ type: T.Type, _ what: String
    ) throws -> T? {
        guard let text = try text(setting) else { return nil }
        guard let value = T(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw FeatureError.invalid("\(setting.names) must be \(what), got '\(text)'")
        }
        return value
    }

    func size(_ setting: TunerConfiguration.Setting, example: String, positive: Bool = false) throws -> Int64? {
        guard let text = try text(setting) else { return nil }
        guard let value = ByteCount.parse(text), !positive || value > 0 else {
            throw FeatureError.invalid("\(setting.names) must be a size like \(example), got '\(text)'")
        }
        return value
    }

    func duration(_ setting: TunerConfiguration.Setting, _ what: String, positive: Bool) throws -> Double? {
        guard let text = try text(setting) else { return nil }
        // Ten years at most: later conversions to whole nanoseconds must not overflow.
        guard let value = DurationText.seconds(text), !positive || value > 0, value <= 315_360_000 else {
            throw FeatureError.invalid("\(setting.names) must be \(what), got '\(text)'")
        }
        return value
    }

    /// Every setting, read once, over the defaults.
    func configuration() throws -> TunerConfiguration {
        var configuration = TunerConfiguration()
        if let host = try text(.host) { configuration.host = host }
        if let port = try integer(.port, in: 0...65535, Int.self, "a port number (0 picks a free one)") {
            configuration.port = port
        }
        if let data = try text(.data) { configuration.dataDirectory = data }
        if let token = try text(.token), !token.isEmpty { configuration.accessToken = token }
        configuration.database = try database()
        configuration.cluster = try cluster(database: configuration.database)
        if let level = try text(.logLevel) ?? logLevelFallback {
            guard let value = Logger.Level(rawValue: level.lowercased()) else {
                throw FeatureError.invalid(
                    """
                    \(TunerConfiguration.Setting.logLevel.names) must be trace, debug, info, notice, warning, \
                    error or critical, got '\(level)'
                    """
                )
            }
            configuration.logLevel = value
        }
        if let bytes = try size(.cacheSize, example: "1GiB") { configuration.cacheSize = bytes }
        if let bytes = try size(.cacheMinFree, example: "256MiB") {
            configuration.cacheMinimumFreeDisk = bytes
            configuration.live.timeshift.minimumFreeBytes = bytes
        }
        if let names = try list(.cacheIgnoreParams) { configuration.cacheIgnoredQueryParameters = names }
        if let seconds = try integer(.upstreamTimeout, in: 1...86_400, Int64.self, "seconds from 1 to 86400") {
            configuration.upstreamTimeoutSeconds = seconds
        }
        configuration.hdhomerunDiscoveryPort =
            try integer(.hdhomerunDiscoveryPort, in: 0...65535, Int.self, "a port from 0 to 65535")
            ?? TunerConfiguration.defaultHDHomeRunDiscoveryPort
        if let text = try text(.guidePlaceholders) {
            switch text.lowercased() {
            case "on", "true", "yes", "1": configuration.guidePlaceholders = true
            case "off", "false", "no", "0": configuration.guidePlaceholders = false
            default:
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.guidePlaceholders.names) must be on or off, got '\(text)'")
            }
        }
        try readLive(into: &configuration)
        configuration.ssdpPort = try integer(.ssdpPort, in: 0...65535, Int.self, "a port from 0 to 65535") ?? 1900
        if let port = try integer(.hdhomerunHttpPort, in: 0...65535, Int.self, "a port from 0 to 65535") {
            configuration.hdhomerunHTTPPort = port
        }
        if let text = try text(.hdhomerunOpen) {
            switch text.lowercased() {
            case "on", "true", "yes", "1": configuration.hdhomerunOpen = true
            case "off", "false", "no", "0": configuration.hdhomerunOpen = false
            default:
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.hdhomerunOpen.names) must be on or off, got '\(text)'")
            }
        }
        if let text = try text(.baseUrl), !text.isEmpty {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                ["http", "https"].contains(scheme),
                url.host != nil, url.query == nil, url.fragment == nil, url.user == nil
            else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.baseUrl.names) must be an http(s) URL like https://tv.example, "
                        + "got '\(text)'"
                )
            }
            configuration.baseURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        if let count = try integer(.prefetchSegments, in: 0...100, Int.self, "a whole number from 0 to 100") {
            configuration.prefetchSegments = count
        }
        if let bytes = try size(.uploadMaxSize, example: "4GiB", positive: true) { configuration.uploadMaxSize = bytes }
        if let seconds = try duration(
            .uploadExpiry, "a duration like 24h, 30m or 90s (0 keeps uploads)", positive: false)
        {
            configuration.uploadExpirySeconds = seconds
        }
        if let origins = try list(.uploadOrigins) { configuration.uploadAllowedOrigins = origins }
        if let names = try list(.publicHosts) { configuration.publicHosts = names }
        if let items = try list(.trustedProxies) {
            do {
                configuration.trustedProxies = try TrustedProxies(parsing: items)
            } catch {
                throw FeatureError.invalid("\(TunerConfiguration.Setting.trustedProxies.names): \(error.description)")
            }
        }
        if let text = try text(.allowFetch) {
            do {
                configuration.allowFetch = try FetchPolicy(parsing: text)
            } catch {
                throw FeatureError.invalid(
                    """
                    \(TunerConfiguration.Setting.allowFetch.names): \(error). Give presets (any, loopback, remote) \
                    and rules, comma-separated, like 'remote,127.0.0.1:8096,10.0.0.0/8,provider.example'
                    """)
            }
        }
        if let origins = try list(.allowedOrigins) { configuration.allowedOrigins = origins }
        if let roots = try list(.filesRoots) { configuration.filesRoots = roots }
        if let seconds = try duration(.idleTimeout, "a positive duration like 60 or 2m", positive: true) {
            configuration.idleTimeoutSeconds = seconds
        }
        if let count = try integer(.transfersMaxActive, in: 1...1000, Int.self, "a whole number from 1 to 1000") {
            configuration.transfersMaximumActive = count
        }
        if let count = try integer(.transfersPerHost, in: 1...1000, Int.self, "a whole number from 1 to 1000") {
            configuration.transfersMaximumPerHost = count
        }
        if let seconds = try duration(.transfersStallTimeout, "a positive duration like 30 or 2m", positive: true) {
            configuration.transfersStallTimeoutSeconds = seconds
        }
        if let seconds = try duration(
            .transfersClaimLifetime, "a duration of at least 3 seconds like 60 or 2m", positive: true)
        {
            guard seconds >= 3 else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.transfersClaimLifetime.names) must be at least 3 seconds")
            }
            configuration.transfersClaimLifetimeSeconds = seconds
        }
        if let folder = try text(.downloadsDir), !folder.isEmpty {
            configuration.downloadsDirectory =
                folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        }
        if let folder = try text(.recordingsDir), !folder.isEmpty {
            configuration.recordingsDirectory =
                folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        }
        if let folder = try text(.backupDir), !folder.isEmpty {
            configuration.backupDirectory =
                folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        }
        if let seconds = try duration(
            .backupEvery, "a duration like 1d, 12h or 3600 (0 turns scheduled backups off)", positive: false)
        {
            configuration.backupEverySeconds = seconds > 0 ? seconds : nil
        }
        if let count = try integer(.backupKeep, in: 1...10_000, Int.self, "a whole number from 1 to 10000") {
            configuration.backupKeep = count
        }
        if let milliseconds = try integer(.transfersSyncMs, in: 1...3_600_000, Int.self, "milliseconds from 1") {
            configuration.transfersSyncIntervalMilliseconds = milliseconds
        }
        if let seconds = try duration(
            .catalogCheckInterval, "a duration like 60 or 5m (0 turns scheduled refreshes off)", positive: false)
        {
            configuration.catalogRefreshCheckSeconds = Int64(seconds.rounded(.up))
        }
        if let seconds = try duration(
            .catalogRefreshInterval, "a positive duration like 86400, 6h or 1d", positive: true)
        {
            configuration.catalogDefaultRefreshSeconds = seconds
        }
        if let bytes = try size(.importMaxSize, example: "2GiB", positive: true) { configuration.importMaxSize = bytes }
        if let seconds = try duration(.importTimeout, "a positive duration like 600 or 10m", positive: true) {
            configuration.importTimeoutSeconds = seconds
        }
        if let bytes = try size(.providerAnswerMaxSize, example: "256MiB", positive: true) {
            configuration.providerAnswerMaxSize = bytes
        }
        return configuration
    }

    /// `--database` with its password: nil (the data folder's SQLite file) when unset or empty.
    /// Errors never quote the address, which may hold the password.
    func database() throws -> DatabaseLocation? {
        guard let address = try text(.database)?.trimmingCharacters(in: .whitespaces), !address.isEmpty else {
            return nil
        }
        let names = TunerConfiguration.Setting.database.names
        guard ["sqlite:", "postgres://", "postgresql://"].contains(where: { address.hasPrefix($0) }) else {
            throw FeatureError.invalid(
                "\(names) must be sqlite:PATH, or postgres://HOST:PORT/DATABASE with USER@ before the host")
        }
        let passwordFile = try text(.databasePasswordFile).flatMap { $0.isEmpty ? nil : $0 }
        var environment: [String: String] = [:]
        if let password = databasePasswordFallback { environment["PGPASSWORD"] = password }
        do throws(StorageConfigurationError) {
            return try DatabaseLocation(address, passwordFile: passwordFile, environment: environment)
        } catch {
            // It names the part that is wrong (host, user, port, the password file's path), never the password.
            throw FeatureError.invalid("\(names): \(error.description)")
        }
    }

    /// `--node-id` with `--advertise` (and the heartbeat's timing): nil without a node name. A
    /// cluster keeps its state in PostgreSQL, which every node reaches.
    func cluster(database: DatabaseLocation?) throws -> ClusterSettings? {
        typealias Setting = TunerConfiguration.Setting
        guard let name = try text(.nodeId)?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            if try text(.advertise) != nil {
                throw FeatureError.invalid("\(Setting.advertise.names) needs \(Setting.nodeId.flagName) too")
            }
            return nil
        }
        guard ClusterSettings.isValidNodeID(name) else {
            throw FeatureError.invalid(
                "\(Setting.nodeId.names) must be 1 to 64 letters, digits, '.', '_' or '-', got '\(name.prefix(80))'")
        }
        guard case .postgres = database else {
            throw FeatureError.invalid(
                "\(Setting.nodeId.names) joins a cluster, whose nodes share one PostgreSQL database: "
                    + "give --database postgres://… too")
        }
        guard let text = try text(.advertise), let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil, url.query == nil, url.fragment == nil,
            url.user == nil, url.path.isEmpty || url.path == "/"
        else {
            throw FeatureError.invalid(
                "\(Setting.advertise.names) must be where the other nodes reach this one, like http://10.0.0.2:8080")
        }
        var settings = ClusterSettings(nodeID: name, advertise: text.hasSuffix("/") ? String(text.dropLast()) : text)
        if let seconds = try duration(.heartbeatInterval, "a positive duration like 1 or 2s", positive: true) {
            settings.heartbeatSeconds = max(0.1, min(seconds, 60))
        }
        if let seconds = try duration(.nodeTimeout, "a positive duration like 5 or 10s", positive: true) {
            settings.nodeTimeoutSeconds = min(seconds, 600)
        }
        guard settings.nodeTimeoutSeconds >= settings.heartbeatSeconds * 2 else {
            throw FeatureError.invalid(
                "\(Setting.nodeTimeout.names) must be at least twice \(Setting.heartbeatInterval.flagName)")
        }
        return settings
    }

    func readLive(into configuration: inout TunerConfiguration) throws {
        if let bytes = try size(.liveBuffer, example: "8MiB", positive: true) {
            guard bytes >= 64 << 10, bytes <= 1 << 30 else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.liveBuffer.names) must be from 64KiB to 1GiB, got \(bytes) bytes")
            }
            configuration.live.ringBytes = Int(bytes)
        }
        if let seconds = try duration(.liveLinger, "a duration like 5 or 30s (0 closes at once)", positive: false) {
            configuration.live.lingerSeconds = min(seconds, 3600)
        }
        if let seconds = try duration(.liveStallTimeout, "a positive duration like 5 or 10s", positive: true) {
            configuration.live.stallSeconds = min(seconds, 600)
            configuration.live.progressSeconds = min(max(seconds + 3, seconds * 1.5), 900)
        }
        if let text = try text(.livePreempt) {
            switch text.lowercased() {
            case "on", "true", "yes", "1": configuration.live.preemptWhenFull = true
            case "off", "false", "no", "0": configuration.live.preemptWhenFull = false
            default:
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.livePreempt.names) must be on or off, got '\(text)'")
            }
        }
        if let text = try text(.timeshift) {
            guard let mode = TimeshiftSettings.Mode(rawValue: text.lowercased()) else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.timeshift.names) must be off, favourites or all, got '\(text)'")
            }
            configuration.live.timeshift.mode = mode
        }
        if let seconds = try duration(.timeshiftWindow, "a duration from 1m to 7d like 3600 or 2h", positive: true) {
            guard (60...7 * 86_400).contains(seconds) else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.timeshiftWindow.names) must be from 1m to 7d, got \(Int(seconds)) s")
            }
            configuration.live.timeshift.windowSeconds = seconds
        }
        if let bytes = try size(.timeshiftMaxSize, example: "4GiB", positive: true) {
            guard bytes >= 16 << 20 else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.timeshiftMaxSize.names) must be at least 16MiB, got \(bytes) bytes")
            }
            configuration.live.timeshift.maxBytes = bytes
        }
        if let text = try text(.transcodeArgs) {
            let arguments = text.split(whereSeparator: \.isWhitespace).map(String.init)
            // ffmpeg's own input and output are Tuner's: the arguments go between them.
            guard !arguments.isEmpty, !arguments.contains(where: { ["-i", "-f", "-y"].contains($0) }) else {
                throw FeatureError.invalid(
                    "\(TunerConfiguration.Setting.transcodeArgs.names) must be ffmpeg options between input and "
                        + "output, like '-c:v libx264 -vf scale=-2:720 -c:a aac', without -i, -f or -y")
            }
            configuration.live.transcodeArguments = arguments
        }
    }
}
