import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folders whose files requests from the network may read (uploads of local files) or write
/// (cache exports): `--files-root`, by default the data folder's `files/`.
///
/// A request names a path; without this any client that can reach the API could upload the
/// user's SSH key to its own server, or hard-link a file into `~/.bashrc`. Paths are resolved
/// with symbolic links followed before the check, so a link inside a root that points outside
/// it does not count as inside.
public struct LocalFileAccess: Sendable {
    /// The roots, absolute and with symbolic links resolved.
    public let roots: [String]

    /// `roots` are created when missing (so the default folder exists for the user to fill).
    public init(roots: [String]) throws {
        var resolved: [String] = []
        for root in roots {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            guard let real = Self.realPath(root) else {
                throw FeatureError(
                    .invalid,
                    "the files root '\(root)' cannot be resolved; check that it is a folder Tuner can read")
            }
            resolved.append(real)
        }
        self.roots = resolved
    }

    /// The resolved path of an existing file to read, when it lies inside a root.
    public func fileToRead(_ path: String) throws(FeatureError) -> String {
        guard path.hasPrefix("/") else { throw FeatureError(.forbidden, "'\(path)' is not an absolute path") }
        guard let real = Self.realPath(path) else {
            throw FeatureError(.forbidden, "'\(path)' does not exist or cannot be read")
        }
        guard isInside(real) else { throw outside(path) }
        return real
    }

    /// The resolved path of a new file to write, when its folder lies inside a root.
    public func fileToWrite(_ path: String) throws(FeatureError) -> String {
        guard path.hasPrefix("/") else { throw FeatureError(.forbidden, "'\(path)' is not an absolute path") }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard !name.isEmpty, name != ".", name != "..", name != "/" else {
            throw FeatureError(.forbidden, "'\(path)' does not name a file")
        }
        guard let folder = Self.realPath(url.deletingLastPathComponent().path) else {
            throw FeatureError(.forbidden, "the folder of '\(path)' does not exist")
        }
        guard isInside(folder + "/" + name) else { throw outside(path) }
        return folder + "/" + name
    }

    func isInside(_ real: String) -> Bool {
        roots.contains { root in real.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
    }

    private func outside(_ path: String) -> FeatureError {
        FeatureError(
            .forbidden,
            """
            '\(path)' is outside the folders Tuner may use for local files (\(roots.joined(separator: ", "))); \
            move it there or start Tuner with --files-root <folder>
            """
        )
    }

    /// `realpath(3)`: absolute, symbolic links and dot segments resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
