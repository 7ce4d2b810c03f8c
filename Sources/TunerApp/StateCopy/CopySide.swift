/// Reads a table's rows, in batches, in the order of the given key columns.
protocol CopyReader: Sendable {
    nonisolated(nonsending) func read(
        _ table: CopyTable, columns: [CopyTable.Column], order: [CopyTable.Column],
        _ body: ([[CopyValue]]) async throws -> Void
    ) async throws
    /// How many rows the table holds (the copy checks that every one of them was read).
    func count(_ table: CopyTable) async throws -> Int
}

/// One engine's end of a copy: what it holds, a consistent read of it, and filling it in one go.
protocol CopySide: Sendable {
    /// The identifiers of the migrations applied to it.
    func appliedMigrations() async throws -> Set<String>
    /// Its module tables (bookkeeping and derived search tables left out).
    func tables() async throws -> [CopyTable]
    /// The highest id each table (lower case) ever gave, where the engine keeps one apart from
    /// the rows (SQLite's AUTOINCREMENT, PostgreSQL's identity sequences).
    func idFloors(_ tables: [CopyTable]) async throws -> [String: Int64]
    /// The tables among `tables` that hold rows.
    func nonEmpty(_ tables: [CopyTable]) async throws -> [String]
    /// Runs `body` with a reader that sees one snapshot of the database throughout.
    func withSnapshot<Result: Sendable>(
        _ body: @escaping @Sendable (any CopyReader) async throws -> Result
    ) async throws -> Result
    /// In one transaction: empties the plans' tables when `replace`, copies every plan's rows from
    /// `reader` (parents first), sets the id counters (at least `floors`) and rebuilds derived
    /// search data. Returns the digests of the rows that went in, in plan order.
    func fill(
        _ plans: [CopyPlan], replace: Bool, floors: [String: Int64], from reader: any CopyReader
    ) async throws -> [TableDigest]
    /// Ends its connections.
    func close() async
}

extension CopyReader {
    /// The digest of a table's rows, read in key order.
    func digest(_ table: CopyTable, columns: [CopyTable.Column], order: [CopyTable.Column]) async throws -> TableDigest
    {
        var digest = RowDigest()
        try await read(table, columns: columns, order: order) { batch in digest.add(batch) }
        return digest.finish()
    }
}
