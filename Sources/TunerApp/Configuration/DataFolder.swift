import Crypto
import Foundation
import Streaming

/// The data folder's layout, and the secrets kept in it.
public struct DataFolder: Sendable {
    public let path: String

    /// Creates the folder (and its imports folder) if needed.
    public init(path: String) throws {
        self.path = (path as NSString).standardizingPath
        try FileManager.default.createDirectory(atPath: importsDirectory, withIntermediateDirectories: true)
    }

    public var cacheDirectory: String { path + "/cache" }
    /// The catalog's and transfers' SQLite database.
    public var databasePath: String { path + "/tuner.sqlite" }
    /// tus uploads received by `tuner serve` (see TusServer.TusUploadStore).
    public var uploadsDirectory: String { path + "/uploads" }
    /// Where imports download playlists and guides (and inflate gzipped ones) before parsing;
    /// each file is removed when its import ends, however it ends.
    public var importsDirectory: String { path + "/imports" }

    /// Removes what imports left in ``importsDirectory`` when the process running them died
    /// (kill -9, power loss): files not changed for `age` seconds, which no running import (each
    /// bounded by `--import-timeout`, the `age` `tuner serve` passes) can still be using.
    public func removeStaleImports(olderThan age: Double) {
        Self.removeUntouched(in: importsDirectory, olderThan: max(age, 0))
    }

    /// Removes the entries of `directory` that `isLeftover` picks (all, unless told) once none
    /// has changed for `age` seconds: what a killed import, backup or restore left behind.
    static func removeUntouched(
        in directory: String, olderThan age: Double, where isLeftover: (String) -> Bool = { _ in true }
    ) {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-age)
        for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where isLeftover(name) {
            let path = directory + "/" + name
            guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified <= cutoff
            else { continue }
            try? manager.removeItem(atPath: path)
        }
    }

    public var secretPath: String { path + "/secret" }
    public var tokenPath: String { path + "/token" }
    /// Where a running server writes its base URL, so the CLI can find it.
    public var serverAddressPath: String { path + "/server.url" }

    /// The HMAC key for proxy URLs: created once (32 random bytes, mode 0600) so URLs stay valid
    /// across restarts.
    public func loadOrCreateSecret() throws -> SymmetricKey {
        SymmetricKey(data: try loadOrCreate(path: secretPath, bytes: 32))
    }

    /// The access token required from API clients when the server listens beyond loopback.
    public func loadOrCreateToken() throws -> String {
        let bytes = try loadOrCreate(path: tokenPath, bytes: 24)
        return Data(bytes).base64URLEncodedString()
    }

    /// Keeps a cluster's secrets in the folder too (the signing key and the token, as this node
    /// uses them), so the owner finds the token where a single Tuner keeps it and the CLI's offline
    /// commands sign what every node accepts.
    public func storeClusterSecrets(signingKey: [UInt8], token: [UInt8]) throws {
        for (path, bytes) in [(secretPath, signingKey), (tokenPath, token)]
        where FileManager.default.contents(atPath: path).map([UInt8].init) != bytes {
            try write(bytes, to: path)
        }
    }

    private func loadOrCreate(path: String, bytes count: Int) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: path), data.count == count {
            return [UInt8](data)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        try write(bytes, to: path)
        return bytes
    }

    /// Writes `bytes` to `path` (mode 0600) through a rename, so no reader sees half of it.
    private func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else {
            throw FeatureError(.failed, "cannot write \(temporary); check that the data folder is writable")
        }
        // A rename is atomic: a crash never leaves a half-written secret behind.
        _ = try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}
