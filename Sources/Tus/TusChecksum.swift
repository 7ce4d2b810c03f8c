import Crypto
import Foundation

/// A checksum algorithm of the tus checksum extension.
public struct TusChecksumAlgorithm: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Sendable, Hashable {
        case sha1, md5, sha256
    }

    private let base: Base

    public static let sha1 = TusChecksumAlgorithm(base: .sha1)
    public static let md5 = TusChecksumAlgorithm(base: .md5)
    public static let sha256 = TusChecksumAlgorithm(base: .sha256)

    /// Every algorithm Tuner computes, strongest first (the order a client prefers them in).
    public static let all: [TusChecksumAlgorithm] = [.sha256, .sha1, .md5]

    /// The name used on the wire (`sha1`, `md5`, `sha256`).
    public var name: String { base.rawValue }
    public var description: String { name }

    /// The algorithm named `name` (case-insensitive), or nil when Tuner does not compute it.
    public init?(name: some StringProtocol) {
        guard let base = Base(rawValue: name.lowercased()) else { return nil }
        self.base = base
    }

    private init(base: Base) {
        self.base = base
    }

    /// A fresh running digest.
    public func makeHasher() -> TusChecksumHasher {
        switch base {
        case .sha1: TusChecksumHasher(state: .sha1(Insecure.SHA1()))
        case .md5: TusChecksumHasher(state: .md5(Insecure.MD5()))
        case .sha256: TusChecksumHasher(state: .sha256(SHA256()))
        }
    }
}

/// A running digest of one of the ``TusChecksumAlgorithm``s.
public struct TusChecksumHasher {
    fileprivate enum State {
        case sha1(Insecure.SHA1)
        case md5(Insecure.MD5)
        case sha256(SHA256)
    }

    fileprivate var state: State

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .sha1(var hasher):
            hasher.update(bufferPointer: bytes)
            state = .sha1(hasher)
        case .md5(var hasher):
            hasher.update(bufferPointer: bytes)
            state = .md5(hasher)
        case .sha256(var hasher):
            hasher.update(bufferPointer: bytes)
            state = .sha256(hasher)
        }
    }

    /// The digest of everything passed to ``update(_:)``.
    public func finalize() -> Data {
        switch state {
        case .sha1(let hasher): Data(hasher.finalize())
        case .md5(let hasher): Data(hasher.finalize())
        case .sha256(let hasher): Data(hasher.finalize())
        }
    }
}

/// The value of an `Upload-Checksum` header: `<algorithm> <base64 digest>`.
public struct TusChecksum: Sendable, Hashable {
    public var algorithm: TusChecksumAlgorithm
    public var digest: Data

    public init(algorithm: TusChecksumAlgorithm, digest: Data) {
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Why an `Upload-Checksum` header could not be used.
    public enum ParseFailure: Error, Sendable, Hashable {
        /// Not `<algorithm> <base64>`, or the base64 is invalid.
        case malformed
        /// A well-formed header naming an algorithm Tuner does not compute.
        case unsupportedAlgorithm(String)
    }

    /// Parses a header value.
    public static func parse(header: String) -> Result<TusChecksum, ParseFailure> {
        let parts = header.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let digest = Data(base64Encoded: String(parts[1])), !digest.isEmpty else {
            return .failure(.malformed)
        }
        guard let algorithm = TusChecksumAlgorithm(name: parts[0]) else {
            return .failure(.unsupportedAlgorithm(String(parts[0])))
        }
        return .success(TusChecksum(algorithm: algorithm, digest: digest))
    }

    /// The header value.
    public var headerValue: String { "\(algorithm.name) \(digest.base64EncodedString())" }
}
