import Foundation
import Synchronization
import Testing
import TunerStorage
import TunerTesting

/// Which state engine the binaries the end-to-end tests start use: the data folder's SQLite file
/// (the default), or, when `TUNER_TEST_E2E_DATABASE=postgres`, a fresh PostgreSQL database of the
/// test server (`TUNER_TEST_POSTGRES`) per data folder, handed to every `tuner` started on that
/// folder (the server and the one-shot commands) with `--database`.
///
/// A folder keeps its database for as long as the folder exists, so a test that stops and starts
/// its server again (or runs `tuner keys add` before `tuner serve`) finds its state. Databases of
/// folders that are gone are dropped when the next database is made; `scripts/test` drops what is
/// left when the run ends (``note(made:)``).
enum EndToEndDatabase {
    /// True in the PostgreSQL pass of the suite.
    static var isPostgres: Bool {
        ProcessInfo.processInfo.environment["TUNER_TEST_E2E_DATABASE"] == "postgres"
    }

    /// For a test that reads the data folder's SQLite file itself: true (and a printed reason)
    /// in the PostgreSQL pass, where that file does not hold the state; the test then returns.
    static func skipsSQLiteFileTest(_ reason: String, _ test: String = #function) -> Bool {
        guard isPostgres else { return false }
        print("note: \(test) skipped in the PostgreSQL pass: \(reason)")
        return true
    }

    /// `arguments` with `--database` added for the data folder they name (`--data DIR`), in the
    /// PostgreSQL pass; as they are otherwise, or when they name a database themselves.
    static func arguments(_ arguments: [String]) async throws -> [String] {
        guard isPostgres, !arguments.contains(where: { $0 == "--database" || $0.hasPrefix("--database=") }),
            let index = arguments.firstIndex(of: "--data"), arguments.indices.contains(index + 1)
        else { return arguments }
        return arguments + ["--database", try await url(forDataFolder: arguments[index + 1])]
    }

    /// The `postgres://` URL of the database that holds `folder`'s state, made on first use.
    static func url(forDataFolder folder: String) async throws -> String {
        let key = (folder as NSString).standardizingPath
        // Made now, so that no other test's clean-up takes the database for an orphan before the
        // binary makes the folder.
        try FileManager.default.createDirectory(atPath: key, withIntermediateDirectories: true)
        if let known = databases.withLock({ $0[key] }) { return Self.url(known) }
        await dropOrphans()
        let address = try await TestPostgres.createDatabase()
        let winner = databases.withLock { databases in
            if let raced = databases[key] { return raced }
            databases[key] = address
            // Under the lock: one append at a time.
            note(made: address)
            return address
        }
        if winner != address { await TestPostgres.drop(address) }
        return Self.url(winner)
    }

    /// Drops the databases whose data folder no longer exists (their test removed its workspace).
    static func dropOrphans() async {
        let orphans = databases.withLock { databases in
            let gone = databases.filter { !FileManager.default.fileExists(atPath: $0.key) }
            for key in gone.keys { databases[key] = nil }
            return Array(gone.values)
        }
        for address in orphans { await TestPostgres.drop(address) }
    }

    /// Appends the database's name to `TUNER_TEST_E2E_DATABASE_LIST` (a file `scripts/test` reads to
    /// drop what the run leaves: the last tests' folders outlive every later start).
    private static func note(made address: PostgresAddress) {
        guard let list = ProcessInfo.processInfo.environment["TUNER_TEST_E2E_DATABASE_LIST"], !list.isEmpty,
            let handle = FileHandle(forWritingAtPath: list)
        else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((address.database + "\n").utf8))
    }

    /// The test server trusts its loopback users: the URL carries no password.
    private static func url(_ address: PostgresAddress) -> String {
        "postgres://\(address.username)@\(address.host):\(address.port)/\(address.database)"
    }

    private static let databases = Mutex<[String: PostgresAddress]>([:])
}
