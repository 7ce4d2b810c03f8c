import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Commands on their way to a server, kept in a folder until the server answered them, so a
/// command whose answer was lost (a timeout, a dropped connection, a server that went away) is
/// sent again, with the same idempotency key, by the next run of the client.
///
/// One JSON file per command, written (synced, then renamed into place) before the command is
/// sent and removed once any answer arrived. The server applies each key once, so sending an
/// entry again is always safe: it acts, or replays what it answered the first time.
public struct CommandOutbox: Sendable {
    /// A command waiting for its answer.
    public struct Entry: Codable, Sendable, Hashable {
        /// The idempotency key the server knows the command by.
        public var key: String
        /// The server (`http://host:port`) it is for: entries for another server wait for it.
        public var server: String
        public var method: String
        /// Path and query, like `/api/v1/transfers`.
        public var target: String
        public var body: Data?
        public var createdAt: Date

        public init(key: String, server: String, method: String, target: String, body: Data?, createdAt: Date) {
            self.key = key
            self.server = server
            self.method = method
            self.target = target
            self.body = body
            self.createdAt = createdAt
        }
    }

    /// The folder of entries.
    public let directory: String

    /// An outbox in `directory` (created when the first command is kept).
    public init(directory: String) {
        self.directory = directory
    }

    /// Keeps `entry` durably (a crash right after still has it).
    public func keep(_ entry: Entry) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let data = try JSONEncoder().encode(entry)
        let final = path(of: entry.key)
        let temporary = final + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, final) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: final])
        }
        syncDirectory()
    }

    /// Forgets the entry of `key`: the server answered it.
    public func remove(key: String) {
        try? FileManager.default.removeItem(atPath: path(of: key))
        syncDirectory()
    }

    /// Every kept entry, oldest first; files that are not entries are skipped.
    public func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let decoder = JSONDecoder()
        return
            names
            .filter { $0.hasSuffix(".json") }
            .compactMap { name in
                FileManager.default.contents(atPath: directory + "/" + name).flatMap {
                    try? decoder.decode(Entry.self, from: $0)
                }
            }
            .sorted { ($0.createdAt, $0.key) < ($1.createdAt, $1.key) }
    }

    private func path(of key: String) -> String {
        // Keys are made by ServerLink (hex), but an entry file never leaves the folder whatever
        // the key holds.
        let safe = key.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "_" }.joined()
        return directory + "/" + safe + ".json"
    }

    /// A rename is durable once its folder is synced.
    private func syncDirectory() {
        let descriptor = open(directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
