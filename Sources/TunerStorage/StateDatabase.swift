/// Where a Tuner keeps its state (catalog, outputs, access, journal, transfers): the embedded
/// SQLite file of its data folder, or a PostgreSQL database that several nodes can share.
///
/// Parsed from `--database` (also `TUNER_DATABASE` and the config file's `database`): nothing or
/// `sqlite:PATH` for SQLite, `postgres://…` for PostgreSQL.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (`<data>/tuner.sqlite` when not given).
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresAddress)

    /// Parses `sqlite:PATH` or a `postgres://` URL (see ``PostgresAddress/init(url:passwordFile:environment:)``).
    public init(
        _ text: String, passwordFile: String? = nil, environment: [String: String] = [:]
    ) throws(StorageConfigurationError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw StorageConfigurationError("sqlite: names no file; write sqlite:PATH")
            }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresAddress(url: text, passwordFile: passwordFile, environment: environment))
        } else {
            // Only the scheme is quoted: what follows it may be a password.
            let scheme = text.prefix(while: { $0 != ":" }).prefix(16)
            throw StorageConfigurationError(
                "the database's scheme '\(scheme)' is neither sqlite: nor postgres://; write sqlite:PATH or a "
                    + "postgres:// URL")
        }
    }

    /// The location without secrets, for logs and errors.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let address): address.description
        }
    }
}

/// An open state database of either engine: what the composition root hands each module's
/// factory of stores (`CatalogStores.make(_:)` and the like).
public enum StateDatabase: Sendable {
    case sqlite(TunerDatabase)
    case postgres(TunerPostgres)

    /// The engine's name, for logs and the health answer.
    public var engineName: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }
}
