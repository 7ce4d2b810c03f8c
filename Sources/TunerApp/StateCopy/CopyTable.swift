/// A table of one engine as the copy sees it: its copyable columns (derived ones, such as a
/// generated `tsvector`, left out), its primary key and the tables its foreign keys name.
struct CopyTable: Sendable {
    /// A column: its name as the engine spells it, and what its declared type holds.
    struct Column: Sendable {
        var name: String
        var kind: Kind
        /// PostgreSQL's identity column (its sequence is set after a copy).
        var isIdentity = false

        var key: String { name.lowercased() }
    }

    /// What a column's declared type holds, so each engine can order and write it as itself.
    enum Kind: Sendable, Equatable {
        case integer, real, text, blob
        /// A type the copy does not know (named in the error when a row of it is read).
        case other(String)
    }

    /// The name as the engine spells it (PostgreSQL folds unquoted names to lower case).
    var name: String
    var columns: [Column]
    /// The primary key's columns (lower case), in key order; empty when the table has none.
    var primaryKey: [String]
    /// The tables (lower case) this one's foreign keys point at.
    var parents: Set<String>
    /// SQLite's AUTOINCREMENT: ids are never reused, kept in `sqlite_sequence`.
    var isAutoincrement = false

    /// The name both engines agree on.
    var key: String { name.lowercased() }

    func column(_ key: String) -> Column? { columns.first { $0.key == key } }
}
