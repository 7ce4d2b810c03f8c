import Logging
import NIOCore
import PostgresNIO

/// Sends the rows of a `COPY … FROM STDIN` (postgres-nio's writer, one buffer at a time), failing
/// as soon as the connection closes instead of waiting forever for a socket that will not drain
/// (see ``ConnectionLossWatch``): the import behind it stops, and its parser thread with it.
public struct PostgresCopyWriter: Sendable {
    let writer: PostgresCopyFromWriter
    let connection: PostgresConnection

    /// Sends `buffer`: rows in `COPY`'s text format.
    public func write(_ buffer: ByteBuffer) async throws {
        let writer = writer
        try await ConnectionLossWatch.shared.run(on: connection) {
            try await writer.write(buffer)
        }
    }
}

extension PostgresConnection {
    /// `COPY table (columns) FROM STDIN` in text format, the rows from `writeData`; an error thrown
    /// there, or the connection's loss, ends the copy and is rethrown.
    ///
    /// - Important: `table` and `columns` go into the SQL as they are: only names from Tuner's code.
    public func copy(
        into table: String, columns: [String] = [], logger: Logger,
        _ writeData: (PostgresCopyWriter) async throws -> Void
    ) async throws {
        try await copyFrom(table: table, columns: columns, logger: logger) { writer in
            try await writeData(PostgresCopyWriter(writer: writer, connection: self))
        }
    }
}
