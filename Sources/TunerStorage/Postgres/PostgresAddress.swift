import Foundation

/// Where a PostgreSQL server is and who Tuner is there: parsed from
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`.
///
/// The password is a secret: it never appears in ``description`` (what logs and errors show), and
/// a URL need not carry it — ``init(url:passwordFile:environment:)`` takes it from a file or from
/// `PGPASSWORD` instead, so it stays out of command lines and process listings.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is encrypted.
    public enum TLSMode: String, Sendable {
        /// Plain TCP (a server on the same host or a trusted LAN).
        case disable
        /// TLS when the server offers it (PostgreSQL's default).
        case prefer
        /// TLS or no connection.
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
        tls: TLSMode = .disable
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses a `postgres://` (or `postgresql://`) URL. The password comes from the URL, else from
    /// `passwordFile` (its first line), else from `PGPASSWORD` in `environment`; none is fine for
    /// servers that trust the address.
    public init(
        url text: String, passwordFile: String? = nil, environment: [String: String] = [:]
    ) throws(StorageConfigurationError) {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw StorageConfigurationError(
                "the database address is not a postgres:// URL; write postgres://USER@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StorageConfigurationError(
                "the database address names no host; write postgres://USER@HOST:PORT/DATABASE")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StorageConfigurationError(
                "the database address names no user; write postgres://USER@HOST:PORT/DATABASE")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw StorageConfigurationError(
                "the database address names no database; write postgres://USER@HOST:PORT/DATABASE")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw StorageConfigurationError("the database address's port \(port) is not between 1 and 65535")
        }
        var tls = TLSMode.disable
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw StorageConfigurationError("sslmode is one of disable, prefer and require")
                }
                tls = mode
            default:
                throw StorageConfigurationError(
                    "the database address's option '\(item.name)' is not known; only sslmode is")
            }
        }
        var password = components.password.flatMap { $0.isEmpty ? nil : $0 }
        if password == nil, let passwordFile {
            guard let contents = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw StorageConfigurationError(
                    "cannot read the database password file \(passwordFile)", kind: .unreadablePasswordFile)
            }
            password = contents.split(whereSeparator: \.isNewline).first.map(String.init)
        }
        if password == nil, let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            password = fromEnvironment
        }
        self.init(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The address without its password: what logs, errors and answers show.
    public var description: String {
        "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// The same server with another database (the tests make one per test).
    public func with(database: String) -> PostgresAddress {
        var copy = self
        copy.database = database
        return copy
    }
}

/// A database setting that cannot be used, with what to write instead.
public struct StorageConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the setting.
    public enum Kind: String, Sendable {
        /// The address is not a usable `postgres://` URL or `sqlite:PATH`.
        case invalidAddress
        /// The password file cannot be read.
        case unreadablePasswordFile
    }

    public let kind: Kind
    public let description: String

    public init(_ description: String, kind: Kind = .invalidAddress) {
        self.kind = kind
        self.description = description
    }
}
