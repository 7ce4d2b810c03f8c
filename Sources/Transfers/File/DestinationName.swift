import Foundation

/// File names under `downloads/`: derived from URLs, made safe, and made unique.
enum DestinationName {
    /// A safe file name: the last path component of `url` (percent-decoded), or `download`.
    static func derive(from url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return sanitize(last.removingPercentEncoding ?? last)
    }

    /// A folder name for an HLS stream: the playlist's name without `.m3u8`, or (for the usual
    /// `…/movie/index.m3u8`, `master.m3u8`, `playlist.m3u8`) the folder it sits in.
    static func deriveFolder(from url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        var parts = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        guard var last = parts.popLast() else { return "stream" }
        if last.lowercased().hasSuffix(".m3u8") { last = String(last.dropLast(5)) }
        if ["index", "master", "playlist", "prog_index", "main", ""].contains(last.lowercased()),
            let parent = parts.last
        {
            last = parent
        }
        let name = sanitize(last)
        return name == "download" ? "stream" : name
    }

    /// Removes path separators and control characters; never empty, `.` or `..`.
    static func sanitize(_ name: String) -> String {
        var cleaned = String(
            name.unicodeScalars.filter { $0 != "/" && $0 != "\\" && $0.value >= 0x20 && $0.value != 0x7F }
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
