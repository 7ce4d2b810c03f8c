import Foundation
import Logging
import TunerStorage

/// `tuner database migrate`: copies Tuner's state from one database to another, SQLite or
/// PostgreSQL either way, and proves the copy.
///
/// Every module table goes across by table and column name (the engines keep the same names;
/// PostgreSQL folds them to lower case), parents before children, in one transaction on the
/// target, from one snapshot of the source. Derived data stays behind and is rebuilt by the target
/// (SQLite's FTS5 index, PostgreSQL's search vector; a source column the target's schema lacks is
/// such data, since both have the same migrations, and the report names it), as are the migration
/// tables: the target is migrated first and must then have the source's migrations exactly. Afterwards each
/// table's rows are read back from the target and compared with what was read from the source, by
/// count and by a SHA-256 over the rows in primary-key order.
public struct StateMigration: Sendable {
    /// The schemas whose migrations the target gets (``DataFolder/databaseSchemas``).
    public let schemas: [any StateSchema.Type]
    /// How the PostgreSQL side's pool waits (a loaded test machine waits longer than a server).
    public let postgresOptions: TunerPostgres.Options
    public let logger: Logger

    public init(
        schemas: [any StateSchema.Type], postgresOptions: TunerPostgres.Options = .init(), logger: Logger
    ) {
        self.schemas = schemas
        self.postgresOptions = postgresOptions
        self.logger = logger
    }

    /// Copies `source` into `target`. A target that already holds rows in a module table is
    /// refused unless `replace`, which empties those tables in the copy's transaction.
    /// The report's ``StateMigrationReport/isVerified`` says whether every table matched.
    public func copy(
        from source: DatabaseLocation, to target: DatabaseLocation, replace: Bool
    ) async throws -> StateMigrationReport {
        guard !Self.same(source, target) else {
            throw FeatureError.invalid("the source and the target are the same database (\(source)); name another")
        }
        let from = try await open(source, migrated: false)
        do {
            let to = try await open(target, migrated: true)
            do {
                let report = try await copy(from: from, to: to, replace: replace, target: target)
                await to.close()
                await from.close()
                return report
            } catch {
                await to.close()
                throw error
            }
        } catch {
            await from.close()
            throw error
        }
    }

    private func copy(
        from source: any CopySide, to target: any CopySide, replace: Bool, target location: DatabaseLocation
    ) async throws -> StateMigrationReport {
        let sourceMigrations = try await source.appliedMigrations()
        let targetMigrations = try await target.appliedMigrations()
        guard sourceMigrations == targetMigrations else {
            let missing = targetMigrations.subtracting(sourceMigrations).sorted()
            let unknown = sourceMigrations.subtracting(targetMigrations).sorted()
            throw FeatureError(
                .conflict,
                "the source's schema is not this Tuner's"
                    + (missing.isEmpty ? "" : " (it lacks \(missing.joined(separator: ", ")))")
                    + (unknown.isEmpty ? "" : " (it has \(unknown.joined(separator: ", ")), unknown here)")
                    + "; open it once with this version of Tuner (tuner serve migrates it), or copy with the "
                    + "version that wrote it")
        }
        let sourceTables = try await source.tables()
        let plans = try CopyPlan.plans(source: sourceTables, target: try await target.tables())
        let occupied = try await target.nonEmpty(plans.map(\.target))
        guard occupied.isEmpty || replace else {
            throw FeatureError(
                .conflict,
                "\(location) already holds Tuner data (\(occupied.prefix(5).joined(separator: ", "))); "
                    + "add --replace to empty it and copy over it")
        }
        let floors = try await source.idFloors(sourceTables)
        let copied = try await source.withSnapshot { reader in
            let digests = try await target.fill(plans, replace: replace, floors: floors, from: reader)
            // Rows the reader could not reach in key order would be missing on both sides alike.
            var counts: [Int] = []
            for plan in plans { counts.append(try await reader.count(plan.source)) }
            return (digests, counts)
        }
        let written = try await target.withSnapshot { reader in
            var digests: [TableDigest] = []
            for plan in plans {
                digests.append(
                    try await reader.digest(plan.target, columns: plan.targetColumns, order: plan.targetOrder))
            }
            return digests
        }
        var tables: [StateMigrationReport.Table] = []
        for (index, plan) in plans.enumerated() {
            let (source, target) = (copied.0[index], written[index])
            let table = StateMigrationReport.Table(
                name: plan.source.name, sourceRows: copied.1[index], copiedRows: source.rows, targetRows: target.rows,
                sourceChecksum: source.checksum, targetChecksum: target.checksum, leftOutColumns: plan.leftOut)
            logger.info(
                "Copied a table",
                metadata: ["table": "\(table.name)", "rows": "\(table.targetRows)", "verified": "\(table.matches)"])
            tables.append(table)
        }
        return StateMigrationReport(tables: tables)
    }

    private func open(_ location: DatabaseLocation, migrated: Bool) async throws -> any CopySide {
        switch location {
        case .sqlite(let path):
            return migrated
                ? try SQLiteCopySide.openMigrated(path: path, schemas: schemas)
                : try SQLiteCopySide.openExisting(path: path, schemas: schemas)
        case .postgres(let address):
            // The source is read as it is; only the target is brought to this Tuner's version.
            let database = try await TunerPostgres.open(
                address: address, schemas: migrated ? schemas.map { $0 } : [], options: postgresOptions,
                logger: logger)
            return PostgresCopySide(database: database, logger: logger)
        }
    }

    private static func same(_ first: DatabaseLocation, _ second: DatabaseLocation) -> Bool {
        switch (first, second) {
        case (.sqlite(let one), .sqlite(let other)):
            URL(fileURLWithPath: one).standardizedFileURL.resolvingSymlinksInPath().path
                == URL(fileURLWithPath: other).standardizedFileURL.resolvingSymlinksInPath().path
        case (.postgres(let one), .postgres(let other)):
            one.host.lowercased() == other.host.lowercased() && one.port == other.port && one.database == other.database
        default:
            false
        }
    }
}
