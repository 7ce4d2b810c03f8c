/// A module's tables in both engines: its GRDB migrations (``DatabaseSchema``) and its PostgreSQL
/// ones (``PostgresSchema``), with the same identifiers.
public typealias StateSchema = DatabaseSchema & PostgresSchema
