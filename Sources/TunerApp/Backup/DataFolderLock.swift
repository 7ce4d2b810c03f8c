import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock on a data folder (`<data>/tuner.lock`, flock): every engine on the folder holds it
/// shared for as long as it lives, and a restore takes it exclusive, so a restore never runs
/// beside a server, and a server never starts in the middle of a restore. The kernel drops the
/// lock when the process ends, kill -9 included: no stale lock file to clean up.
public final class DataFolderLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock without waiting; throws when the other kind is held.
    public init(folder: DataFolder, exclusive: Bool) throws {
        let path = folder.path + "/tuner.lock"
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw BackupError.unreadable(path) }
        guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            _ = close(descriptor)
            if exclusive { throw BackupError.serverRunning(folder.path) }
            throw FeatureError(
                .conflict, "a restore is running on \(folder.path); start Tuner again when it has finished")
        }
        self.descriptor = descriptor
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        _ = close(descriptor)
    }
}
