import Logging
import PostgresNIO

/// Reads the columns of a result row in order: `try cells.next(Int64.self)`. Tuple decoding stops
/// at a handful of columns; an item has twenty-two.
struct PostgresCells {
    private let cells: [PostgresCell]
    private var index = 0

    init(_ row: PostgresRow) {
        cells = Array(row)
    }

    mutating func next<Value: PostgresDecodable>(_ type: Value.Type = Value.self) throws -> Value {
        guard index < cells.count else {
            throw CatalogError.unsupported("a database row with fewer columns than expected")
        }
        defer { index += 1 }
        return try cells[index].decode(Value.self)
    }

    /// A SQLite-style boolean: a BIGINT 0 or 1.
    mutating func flag() throws -> Bool {
        try next(Int64.self) != 0
    }
}

extension PostgresConnection {
    /// Every row of `query`.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }

    /// The one column of every row of `query`.
    func values<Value: PostgresDecodable>(_ query: PostgresQuery, as type: Value.Type, logger: Logger) async throws
        -> [Value]
    {
        try await rows(query, logger: logger).map { try $0.decode(Value.self) }
    }
}
