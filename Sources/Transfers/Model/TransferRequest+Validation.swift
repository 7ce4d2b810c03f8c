import Foundation

extension TransferRequest {
    /// Refuses what no run could carry out, with a message that says what to give instead:
    /// an unknown kind, a download that is not http(s), an upload of no file or to no http(s)
    /// URL, a malformed SHA-256, a file name with a path in it.
    func validate(hasExecutor: Bool) throws {
        guard TransferKind.known.contains(kind) || hasExecutor else {
            throw TransferError.invalidRequest(
                """
                unknown transfer kind '\(kind)'; known kinds: \
                \(TransferKind.known.map(\.rawValue).joined(separator: ", "))
                """
            )
        }
        if kind == .downloadFile || kind == .downloadHLS {
            guard let components = URLComponents(string: sourceURL),
                let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
            else {
                throw TransferError.invalidRequest(
                    """
                    '\(sourceURL)' is not an http(s) URL; give a full URL such as \
                    https://example.com/video.mp4
                    """
                )
            }
        }
        if kind == .uploadTus || kind == .uploadPlain {
            let path = URL(string: sourceURL).flatMap { $0.isFileURL ? $0.path : nil } ?? sourceURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw TransferError.invalidRequest(
                    "'\(sourceURL)' is not a file to upload; give the path of an existing file")
            }
            guard let target = properties["destinationURL"], let components = URLComponents(string: target),
                let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                components.host?.isEmpty == false
            else {
                throw TransferError.invalidRequest(
                    "an upload needs an http(s) destinationURL, got '\(properties["destinationURL"] ?? "")'")
            }
        }
        if let sha = expectedSHA256 {
            guard sha.count == 64, sha.allSatisfy(\.isHexDigit) else {
                throw TransferError.invalidRequest("the SHA-256 must be 64 hex digits, got '\(sha)'")
            }
        }
        if let name = destinationName, name.contains("/") || name == "." || name == ".." || name.isEmpty {
            throw TransferError.invalidRequest("the file name '\(name)' must be a plain name without '/'")
        }
    }
}
