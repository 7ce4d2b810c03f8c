/// Why a backup could not be made or restored; each message says what to do.
public struct BackupError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, for callers that act on it (the CLI's exit, the API's status).
    public enum Kind: Sendable, Equatable {
        /// The backup file is damaged, truncated, or not a Tuner backup.
        case invalid
        /// The backup was made by a newer Tuner: its schema or format is unknown here.
        case newer
        /// A file could not be read or written.
        case unreadable
        /// A file's length changed while it was being copied.
        case changedWhileCopied
        /// `tuner serve` runs on the data folder (a restore needs it stopped).
        case serverRunning
        /// The data folder already holds a state database (a restore needs `--replace`).
        case occupied
        /// The target file exists already.
        case exists
    }

    public let kind: Kind
    public let description: String

    static func invalid(_ reason: String) -> Self {
        Self(kind: .invalid, description: "the backup cannot be restored: \(reason); nothing was changed")
    }

    static func newer(_ reason: String) -> Self {
        Self(
            kind: .newer,
            description: "the backup was made by a newer Tuner (\(reason)); restore it with that version or a "
                + "later one. Nothing was changed")
    }

    static func unreadable(_ path: String) -> Self {
        Self(kind: .unreadable, description: "cannot open \(path); check that it exists and that Tuner may use it")
    }

    static func changedWhileCopied(_ path: String) -> Self {
        Self(kind: .changedWhileCopied, description: "\(path) changed while it was copied; back up again")
    }

    static func serverRunning(_ folder: String) -> Self {
        Self(
            kind: .serverRunning,
            description: "tuner serve is running on \(folder); stop it, then restore (a running server would "
                + "overwrite what the restore puts in place). Nothing was changed")
    }

    static func occupied(_ folder: String) -> Self {
        Self(
            kind: .occupied,
            description: "\(folder) already holds Tuner's state; pass --replace to set it aside (it is moved "
                + "into \(folder)/before-restore-…) and restore. Nothing was changed")
    }

    static func exists(_ path: String) -> Self {
        Self(kind: .exists, description: "\(path) exists already; name another file or remove it")
    }
}
