import Foundation
import Logging
import Synchronization
import TunerAPI

/// The backups of a running Tuner: written on request (the web app's button,
/// `POST /api/v1/backups`) or on a schedule (`--backup-every`), into the backup folder
/// (`--backup-dir`, default `<data>/backups`), of which the newest `--backup-keep` are kept.
///
/// Backups stay on the server's disk: they hold the access token and the providers' passwords,
/// so no answer carries one; the owner copies them off the machine (scp, a synced folder).
public final class Backups: Sendable {
    public let directory: String
    let backup: StateBackup
    let everySeconds: Double?
    let keep: Int
    let logger: Logger
    /// One backup at a time: a second request while one is written is refused.
    private let writing = Mutex(false)

    init(backup: StateBackup, directory: String, everySeconds: Double?, keep: Int, logger: Logger) {
        self.backup = backup
        self.directory = directory
        self.everySeconds = everySeconds
        self.keep = keep
        self.logger = logger
    }

    /// Writes a backup now; answers what it holds.
    public func makeNow() async throws -> BackupAnswer {
        let started = writing.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
        guard started else { throw FeatureError(.conflict, "a backup is being written; wait for it to finish") }
        defer { writing.withLock { $0 = false } }
        let now = Date()
        var name = Self.fileName(at: now)
        var attempt = 1
        while FileManager.default.fileExists(atPath: directory + "/" + name) {
            attempt += 1
            name = Self.fileName(at: now, attempt: attempt)
        }
        let summary: StateBackup.Summary
        do {
            summary = try await backup.write(to: directory + "/" + name)
        } catch let error as BackupError {
            throw FeatureError(error.kind == .exists ? .conflict : .failed, error.description)
        }
        return BackupAnswer(
            name: name, size: summary.size, createdAt: summary.manifest.createdAt, engine: summary.manifest.engine)
    }

    /// `tuner-backup-2026-11-28T153000Z.tar` (`-2.tar` and on for more in one second): the name
    /// of a backup made at `date`, which sorts by time and is valid in a file name everywhere.
    public static func fileName(at date: Date, attempt: Int = 1) -> String {
        "tuner-backup-\(StateRestore.stamp(date))" + (attempt > 1 ? "-\(attempt)" : "") + ".tar"
    }

    /// The backups in the folder, newest first.
    public func list() -> BackupListAnswer {
        BackupListAnswer(
            backups: Self.files(in: directory).map {
                BackupAnswer(name: $0.name, size: $0.size, createdAt: $0.modified, engine: nil)
            },
            everySeconds: everySeconds, keep: keep)
    }

    /// Writes a backup every `--backup-every`, counted from the newest one in the folder (a
    /// restart does not reset the clock), and removes the oldest beyond `--backup-keep`. Returns
    /// at once when no schedule is set.
    public func runSchedule() async {
        guard let everySeconds else { return }
        while !Task.isCancelled {
            let newest = Self.files(in: directory).first?.modified
            let due = newest.map { $0.addingTimeInterval(everySeconds) } ?? Date()
            let wait = due.timeIntervalSinceNow
            if wait > 0 {
                do {
                    try await Task.sleep(for: .seconds(wait))
                } catch {
                    return
                }
                continue
            }
            do {
                let made = try await makeNow()
                logger.info("Scheduled backup written", metadata: ["name": "\(made.name)", "bytes": "\(made.size)"])
            } catch {
                logger.error(
                    "Scheduled backup failed; trying again in a minute", metadata: ["error": "\(error)"])
                do {
                    try await Task.sleep(for: .seconds(min(60, everySeconds)))
                } catch {
                    return
                }
                continue
            }
            prune()
        }
    }

    /// Removes the oldest backups beyond `keep`.
    func prune() {
        for old in Self.files(in: directory).dropFirst(keep) {
            do {
                try FileManager.default.removeItem(atPath: directory + "/" + old.name)
                logger.info("Old backup removed", metadata: ["name": "\(old.name)"])
            } catch {
                logger.warning("Cannot remove an old backup", metadata: ["name": "\(old.name)", "error": "\(error)"])
            }
        }
    }

    /// The folder's backups (by their name: `tuner-backup-….tar`), newest first.
    static func files(in directory: String) -> [(name: String, size: Int64, modified: Date)] {
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
        return
            names
            .filter { $0.hasPrefix("tuner-backup-") && $0.hasSuffix(".tar") }
            .compactMap { name in
                guard let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name),
                    let modified = attributes[.modificationDate] as? Date
                else { return nil }
                return (name, (attributes[.size] as? NSNumber)?.int64Value ?? 0, modified)
            }
            .sorted { ($0.modified, $0.name) > ($1.modified, $1.name) }
    }
}
