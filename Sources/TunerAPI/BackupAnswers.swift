import Foundation

/// A backup in the server's backup folder (`GET /api/v1/backups`, and the answer of
/// `POST /api/v1/backups`). The file stays on the server: it holds secrets.
public struct BackupAnswer: Codable, Sendable, Equatable {
    /// The file's name in the backup folder (`tuner-backup-2026-11-28T153000Z.tar`).
    public var name: String
    public var size: Int64
    public var createdAt: Date
    /// The engine the state came from (`sqlite` or `postgres`): in a fresh backup's answer only.
    public var engine: String?

    public init(name: String, size: Int64, createdAt: Date, engine: String?) {
        self.name = name
        self.size = size
        self.createdAt = createdAt
        self.engine = engine
    }
}

/// The backups on the server, newest first, and the schedule.
public struct BackupListAnswer: Codable, Sendable, Equatable {
    public var backups: [BackupAnswer]
    /// Seconds between scheduled backups; absent when none are scheduled.
    public var everySeconds: Double?
    /// How many backups the folder keeps.
    public var keep: Int

    public init(backups: [BackupAnswer], everySeconds: Double?, keep: Int) {
        self.backups = backups
        self.everySeconds = everySeconds
        self.keep = keep
    }
}
