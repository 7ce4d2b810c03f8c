/// What ``StateMigration`` copied, table by table, and whether the target matches the source.
public struct StateMigrationReport: Sendable {
    /// One table: rows at the source, rows copied and read back, and both checksums (SHA-256 over
    /// the rows in primary-key order, values in one form whichever engine held them).
    public struct Table: Sendable, Equatable {
        public let name: String
        /// `count(*)` at the source, in the snapshot the copy read.
        public let sourceRows: Int
        /// Rows read from the source and written.
        public let copiedRows: Int
        /// Rows read back from the target after the commit.
        public let targetRows: Int
        public let sourceChecksum: String
        public let targetChecksum: String
        /// Source columns the target's schema has no place for: data the source's engine derives
        /// (PostgreSQL's search columns), which the target rebuilds its own way. Not in the checksums.
        public let leftOutColumns: [String]

        /// Every row arrived, and the target holds exactly what the source held.
        public var matches: Bool {
            sourceRows == copiedRows && copiedRows == targetRows && sourceChecksum == targetChecksum
        }
    }

    public let tables: [Table]

    /// Every table matched.
    public var isVerified: Bool { tables.allSatisfy(\.matches) }

    /// The report as a text table: table, rows, checksum ok.
    public var text: String {
        let width = max(5, tables.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String {
            text + String(repeating: " ", count: max(0, count - text.count))
        }
        var lines = [pad("TABLE", width) + "  " + pad("ROWS", 10) + "  CHECKSUM"]
        for table in tables {
            let (from, to) = (table.sourceRows, table.targetRows)
            let rows = from == to ? "\(to)" : "\(from)→\(to)"
            lines.append(pad(table.name, width) + "  " + pad(rows, 10) + "  " + (table.matches ? "ok" : "MISMATCH"))
        }
        for table in tables where !table.leftOutColumns.isEmpty {
            lines.append(
                "\(table.name): left \(table.leftOutColumns.joined(separator: ", ")) behind (derived by the source's "
                    + "engine; the target has no such column)")
        }
        return lines.joined(separator: "\n")
    }
}
