import Foundation

/// File names under `downloads/`: derived from URLs, made safe, and made unique.
enum DestinationName {
    /// A safe file name: the last path component of `url` (percent-decoded), or `download`.
    static func derive(from url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return sanitize(last.removingPercentEncoding ?? last)
    }

    /// Removes path separators and control characters; never empty, `.` or `..`.
    static func sanitize(_ name: String) -> String {
        var cleaned = String(name.unicodeScalars.filter { $0 != "/" && $0 != "\\" && $0.value >= 0x20 && $0.value != 0x7F }
            .map(Character.init))
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.hasSuffix(".partial") { cleaned += "-file" }
        if cleaned.utf8.count > 200 { cleaned = String(cleaned.prefix(200)) }
        return cleaned.isEmpty ? "download" : cleaned
    }

    /// `name`, or `name-1.ext`, `name-2.ext`, … : the first for which `isTaken` says no.
    static func unique(_ name: String, isTaken: (String) -> Bool) -> String {
        if !isTaken(name) { return name }
        let ns = name as NSString
        let ext = ns.pathExtension
        let base = ext.isEmpty ? name : ns.deletingPathExtension
        var counter = 1
        while true {
            let candidate = ext.isEmpty ? "\(base)-\(counter)" : "\(base)-\(counter).\(ext)"
            if !isTaken(candidate) { return candidate }
            counter += 1
        }
    }
}
