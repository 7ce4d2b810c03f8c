import Foundation
import LiveTV
import Testing
import TunerApp
import TunerStorage

/// `TunerConfiguration.load`: flags over environment over file over defaults, read once, and every
/// unusable value an error that names where it can be set.
@Suite struct ConfigurationLoadingTests {
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "tuner-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func eachLayerOverridesTheOneBelow() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The data folder's tuner.json is read when no file is named.
        try #"{"port": 9000, "cacheSize": "2GiB", "host": "0.0.0.0", "publicHosts": ["tv.lan", "tuner.lan"]}"#
            .write(toFile: folder + "/tuner.json", atomically: true, encoding: .utf8)
        let environment = ["TUNER_DATA": folder, "TUNER_PORT": "9100", "TUNER_CACHE_SIZE": "3GiB"]

        let fileOnly = try await TunerConfiguration.load(environment: ["TUNER_DATA": folder])
        #expect(fileOnly.port == 9000)
        #expect(fileOnly.cacheSize == 2 << 30)
        #expect(fileOnly.host == "0.0.0.0")
        #expect(fileOnly.publicHosts == ["tv.lan", "tuner.lan"])
        #expect(fileOnly.prefetchSegments == TunerConfiguration().prefetchSegments, "defaults stay")

        let withEnvironment = try await TunerConfiguration.load(environment: environment)
        #expect(withEnvironment.port == 9100)
        #expect(withEnvironment.cacheSize == 3 << 30)
        #expect(withEnvironment.host == "0.0.0.0", "the file still gives what the environment does not")

        let withFlags = try await TunerConfiguration.load(flags: ["port": "0"], environment: environment)
        #expect(withFlags.port == 0)
        #expect(withFlags.cacheSize == 3 << 30)
    }

    @Test func defaultsWithNothingSet() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loaded = try await TunerConfiguration.load(flags: ["data": folder], environment: [:])
        let defaults = TunerConfiguration()
        #expect(loaded.port == defaults.port)
        #expect(loaded.host == defaults.host)
        #expect(loaded.cacheSize == defaults.cacheSize)
        #expect(loaded.dataDirectory == folder)
        #expect(loaded.logLevel == .info)
    }

    @Test func everyEnvironmentNameIsTheSettingInSnakeCase() async throws {
        #expect(TunerConfiguration.Setting.cacheMinFree.environmentName == "TUNER_CACHE_MIN_FREE")
        #expect(TunerConfiguration.Setting.transfersSyncMs.environmentName == "TUNER_TRANSFERS_SYNC_MS")
        #expect(TunerConfiguration.Setting.cacheIgnoreParams.flagName == "--cache-ignore-params")
        let loaded = try await TunerConfiguration.load(
            environment: [
                "TUNER_DATA": try temporaryFolder(), "TUNER_CACHE_MIN_FREE": "1GiB", "TUNER_TRANSFERS_SYNC_MS": "500",
                "TUNER_CACHE_IGNORE_PARAMS": "token, exp", "TUNER_ALLOW_FETCH": "loopback", "TUNER_TOKEN": "s3cret",
                "TUNER_UPLOAD_EXPIRY": "30m", "TUNER_CATALOG_CHECK_INTERVAL": "5m", "LOG_LEVEL": "debug",
            ])
        #expect(loaded.cacheMinimumFreeDisk == 1 << 30)
        #expect(loaded.transfersSyncIntervalMilliseconds == 500)
        #expect(loaded.cacheIgnoredQueryParameters == ["token", "exp"])
        #expect(loaded.allowFetch == .loopback)
        #expect(loaded.accessToken == "s3cret")
        #expect(loaded.uploadExpirySeconds == 1800)
        #expect(loaded.catalogRefreshCheckSeconds == 300)
        #expect(loaded.logLevel == .debug)
    }

    @Test(arguments: [
        ("TUNER_PORT", "65536"), ("TUNER_PORT", "eighty"), ("TUNER_CACHE_SIZE", "lots"),
        ("TUNER_UPSTREAM_TIMEOUT", "0"), ("TUNER_IDLE_TIMEOUT", "1e300"), ("TUNER_ALLOW_FETCH", "some_where"),
        ("TUNER_TRANSFERS_MAX_ACTIVE", "-1"), ("TUNER_LOG_LEVEL", "loud"), ("TUNER_PREFETCH_SEGMENTS", "99999999999"),
    ])
    func unusableValuesAreErrorsThatNameTheSetting(name: String, value: String) async throws {
        let error = await #expect(throws: FeatureError.self) {
            try await TunerConfiguration.load(environment: ["TUNER_DATA": try temporaryFolder(), name: value])
        }
        #expect(error?.description.contains(name) == true, "\(String(describing: error))")
        #expect(error?.description.contains("'\(value)'") == true, "\(String(describing: error))")
    }

    @Test func liveSettingsAreReadAndChecked() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loaded = try await TunerConfiguration.load(
            flags: [
                "liveBuffer": "8MiB", "liveLinger": "30s", "liveStallTimeout": "2", "livePreempt": "on",
                "transcodeArgs": "-c:v libx264 -vf scale=-2:540",
            ], environment: ["TUNER_DATA": folder])
        #expect(loaded.live.ringBytes == 8 << 20)
        #expect(loaded.live.lingerSeconds == 30)
        #expect(loaded.live.stallSeconds == 2 && loaded.live.progressSeconds == 5)
        #expect(loaded.live.preemptWhenFull)
        #expect(loaded.live.transcodeArguments == ["-c:v", "libx264", "-vf", "scale=-2:540"])
        let defaults = try await TunerConfiguration.load(environment: ["TUNER_DATA": folder])
        #expect(defaults.live == LiveSettings())
        // A tiny buffer, a word for a switch, ffmpeg's input or output taken over, no stall time.
        for (name, value) in [
            ("TUNER_LIVE_BUFFER", "1KiB"), ("TUNER_LIVE_PREEMPT", "sometimes"),
            ("TUNER_TRANSCODE_ARGS", "-i /etc/passwd"), ("TUNER_TRANSCODE_ARGS", "-f null"),
            ("TUNER_LIVE_STALL_TIMEOUT", "0"),
        ] {
            let error = await #expect(throws: FeatureError.self) {
                try await TunerConfiguration.load(environment: ["TUNER_DATA": folder, name: value])
            }
            #expect(error?.description.contains(name) == true, "\(String(describing: error))")
        }
    }

    @Test func theDatabaseComesFromAFlagTheEnvironmentOrTheFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let none = try await TunerConfiguration.load(environment: ["TUNER_DATA": folder])
        #expect(none.database == nil, "nothing set: the data folder's SQLite file")

        try #"{"database": "postgres://tuner@db.lan:5433/state?sslmode=require"}"#
            .write(toFile: folder + "/tuner.json", atomically: true, encoding: .utf8)
        let fromFile = try await TunerConfiguration.load(environment: ["TUNER_DATA": folder])
        #expect(
            fromFile.database
                == .postgres(
                    PostgresAddress(host: "db.lan", port: 5433, username: "tuner", database: "state", tls: .require)))

        let fromEnvironment = try await TunerConfiguration.load(
            environment: ["TUNER_DATA": folder, "TUNER_DATABASE": "sqlite:/var/lib/tuner/state.sqlite"])
        #expect(fromEnvironment.database == .sqlite(path: "/var/lib/tuner/state.sqlite"))

        let fromFlag = try await TunerConfiguration.load(
            flags: ["database": "postgres://node@10.0.0.5/tuner"],
            environment: ["TUNER_DATA": folder, "TUNER_DATABASE": "sqlite:/elsewhere.sqlite"])
        #expect(fromFlag.database == .postgres(PostgresAddress(host: "10.0.0.5", username: "node", database: "tuner")))
    }

    @Test func thePasswordComesFromTheURLAFileOrPGPASSWORDAndNeverShows() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let passwordFile = folder + "/db-password"
        try "from-the-file-9f3\nsecond line ignored\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let url = "postgres://tuner@127.0.0.1:5432/tuner"

        func password(_ flags: [String: String], _ environment: [String: String]) async throws -> String? {
            let loaded = try await TunerConfiguration.load(
                flags: flags, environment: environment.merging(["TUNER_DATA": folder]) { first, _ in first })
            guard case .postgres(let address) = loaded.database else { return nil }
            #expect(!"\(address)".contains(address.password ?? "no password"), "the description hides it")
            #expect(!"\(loaded.database!)".contains(address.password ?? "no password"))
            return address.password
        }
        #expect(try await password(["database": url], [:]) == nil)
        #expect(
            try await password(["database": "postgres://tuner:in-the-url-1c2@127.0.0.1/tuner"], [:]) == "in-the-url-1c2"
        )
        #expect(
            try await password(["database": url, "databasePasswordFile": passwordFile], [:]) == "from-the-file-9f3")
        #expect(
            try await password(["database": url], ["TUNER_DATABASE_PASSWORD_FILE": passwordFile, "PGPASSWORD": "env"])
                == "from-the-file-9f3", "a file wins over PGPASSWORD")
        #expect(try await password(["database": url], ["PGPASSWORD": "from-pgpassword-77"]) == "from-pgpassword-77")
        #expect(
            try await password(["database": "postgres://tuner:url-wins@127.0.0.1/tuner"], ["PGPASSWORD": "env"])
                == "url-wins")
    }

    @Test(arguments: [
        "mysql://tuner:hunter2secret@db/tuner", "postgres://:hunter2secret@db/tuner",
        "postgres://tuner:hunter2secret@/tuner", "postgres://tuner:hunter2secret@db:99999/tuner",
        "postgres://tuner:hunter2secret@db/", "postgres://tuner:hunter2secret@db/tuner?sslmode=maybe",
        "postgres://tuner:hunter2secret@db/tuner?application=x", "sqlite:",
    ])
    func anUnusableDatabaseIsAnErrorThatNamesTheSettingButNotThePassword(address: String) async throws {
        let error = await #expect(throws: FeatureError.self) {
            try await TunerConfiguration.load(environment: [
                "TUNER_DATA": try temporaryFolder(), "TUNER_DATABASE": address,
            ])
        }
        #expect(error?.kind == .invalid)
        #expect(error?.description.contains("TUNER_DATABASE") == true, "\(String(describing: error))")
        #expect(error?.description.contains("hunter2") == false, "\(String(describing: error))")
    }

    @Test func anUnreadablePasswordFileIsAnError() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = await #expect(throws: FeatureError.self) {
            try await TunerConfiguration.load(
                flags: ["database": "postgres://tuner@db/tuner", "databasePasswordFile": folder + "/missing"],
                environment: ["TUNER_DATA": folder])
        }
        #expect(error?.description.contains(folder + "/missing") == true, "\(String(describing: error))")
    }

    @Test func aNamedFileMustExistAndParse() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        await #expect(throws: FeatureError.self) {
            try await TunerConfiguration.load(flags: ["config": folder + "/missing.json"], environment: [:])
        }
        try "{ not json".write(toFile: folder + "/bad.json", atomically: true, encoding: .utf8)
        let error = await #expect(throws: FeatureError.self) {
            try await TunerConfiguration.load(environment: ["TUNER_CONFIG": folder + "/bad.json"])
        }
        #expect(error?.description.contains("bad.json") == true)
        try #"{"port": "7000"}"#.write(toFile: folder + "/good.json", atomically: true, encoding: .utf8)
        let loaded = try await TunerConfiguration.load(
            flags: ["config": folder + "/good.json"], environment: ["TUNER_DATA": folder])
        #expect(loaded.port == 7000)
    }
}
