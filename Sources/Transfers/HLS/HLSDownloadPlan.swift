import Foundation
import MediaFormats

/// Which media playlist of a download an item belongs to: the chosen variant (or the media
/// playlist asked for), or the separate audio rendition the variant plays its sound from.
enum HLSDownloadMedia: String, Sendable, Hashable {
    case main
    case audio

    /// Put before every local name of the playlist's files, so two renditions whose files have
    /// the same names (`seg0.m4s` in `video/` and in `audio/`) never share a local file.
    var namePrefix: String {
        switch self {
        case .main: ""
        case .audio: "audio-"
        }
    }

    /// How errors and logs name the playlist's files ("audio segment"); nil for the main one.
    var label: String? {
        switch self {
        case .main: nil
        case .audio: "audio"
        }
    }
}

/// One file (or one byte range of a file) a download fetches.
struct HLSDownloadItem: Sendable, Hashable {
    /// What the item is, for the error message and the log.
    enum Role: String, Sendable {
        case segment, key, map
    }

    /// The key of the item in the resume state: the local name, plus `@offset+length` for a range.
    let id: String
    let url: URL
    /// The file in the destination folder (several range items may share one).
    let localName: String
    /// Nil for the whole resource; otherwise the bytes to fetch, written at the same offsets of
    /// the local file so the playlist's `#EXT-X-BYTERANGE` lines stay true.
    let range: HLSByteRange?
    let role: Role
    /// The 0-based index of the first segment that uses the item.
    let segmentIndex: Int
    /// The media playlist the item belongs to.
    var media: HLSDownloadMedia = .main
}

/// What to fetch for a media playlist, and the local name of each of its URIs: pure, so the
/// same playlist always gives the same names (which is what makes resuming safe).
///
/// Local names: segments `segment-NNNNN.<ext>` (numbered by first use, extension kept from the
/// URL so players pick the right demuxer: `.ts` or `.m4s` when the URL has none), init sections
/// `init-N.<ext>` (`.mp4` by default), keys `key-N.key`; the files of a separate audio rendition
/// get the same names behind `audio-` (`audio-segment-00000.m4s`).
///
/// Byte ranges: a resource that the playlist only uses through byte ranges is fetched range by
/// range (one item each, so a resume skips the ranges already done) into one local file at the
/// same offsets; the local playlist keeps its `#EXT-X-BYTERANGE` lines unchanged. Bytes of the
/// resource that no range covers are holes (zeros) in the local file. A resource used whole
/// anywhere is fetched whole once.
struct HLSDownloadPlan: Sendable {
    let items: [HLSDownloadItem]
    /// Absolute URL text → local name, for every URI that is downloaded.
    let localNames: [String: String]
    let segmentCount: Int

    init(playlist: HLSPlaylist, baseURL: URL, media: HLSDownloadMedia = .main) throws(TransferError) {
        let rewriter = HLSRewriter(baseURL: baseURL)
        var names: [String: String] = [:]
        var roles: [String: (role: HLSDownloadItem.Role, url: URL, segment: Int)] = [:]
        var order: [String] = []
        var wholeUse: Set<String> = []
        var ranges: [String: [HLSByteRange]] = [:]
        var counts: [HLSDownloadItem.Role: Int] = [:]

        func resolve(_ uri: String, segment: Int) throws(TransferError) -> URL {
            guard let url = rewriter.resolve(uri) else {
                throw TransferError.hls(
                    .invalidPlaylist, segmentIndex: segment, rendition: media.label,
                    "cannot read the URI \"\(uri)\" as a URL")
            }
            return url
        }

        func use(_ url: URL, role: HLSDownloadItem.Role, range: HLSByteRange?, segment: Int, hasMap: Bool) {
            let key = url.absoluteString
            if names[key] == nil {
                let number = counts[role, default: 0]
                counts[role] = number + 1
                names[key] =
                    media.namePrefix + HLSDownloadPlan.localName(for: url, role: role, number: number, hasMap: hasMap)
                roles[key] = (role, url, segment)
                order.append(key)
            }
            if let range {
                if !(ranges[key]?.contains(range) ?? false) { ranges[key, default: []].append(range) }
            } else {
                wholeUse.insert(key)
            }
        }

        let segments = playlist.segments
        for index in segments.indices {
            let segment = segments[index]
            if let map = segment.map {
                use(
                    try resolve(map.uri, segment: index), role: .map, range: map.byteRange, segment: index, hasMap: true
                )
            }
            for key in segment.keys where key.method != .none {
                guard let uri = key.uri else {
                    throw TransferError.hls(
                        .invalidPlaylist, segmentIndex: index, rendition: media.label,
                        "the #EXT-X-KEY on line \(key.line) has no URI")
                }
                let url = try resolve(uri, segment: index)
                switch url.scheme?.lowercased() {
                case "http", "https":
                    use(url, role: .key, range: nil, segment: index, hasMap: false)
                case "data":
                    continue  // Inline: already in the playlist, plays offline as it is.
                default:
                    throw TransferError.hls(
                        .unsupported, url: url, segmentIndex: index, rendition: media.label,
                        """
                        the key on line \(key.line) (\(key.method), KEYFORMAT \(key.keyFormat)) is not an http(s) \
                        URL: DRM-protected streams cannot be downloaded
                        """
                    )
                }
            }
            use(
                try resolve(segment.uri, segment: index), role: .segment, range: segment.byteRange, segment: index,
                hasMap: segment.map != nil)
        }

        var items: [HLSDownloadItem] = []
        for key in order {
            guard let name = names[key], let origin = roles[key] else { continue }
            if wholeUse.contains(key) {
                items.append(
                    HLSDownloadItem(
                        id: name, url: origin.url, localName: name, range: nil, role: origin.role,
                        segmentIndex: origin.segment, media: media))
            } else {
                for range in ranges[key] ?? [] {
                    items.append(
                        HLSDownloadItem(
                            id: "\(name)@\(range.offset)+\(range.length)", url: origin.url, localName: name,
                            range: range,
                            role: origin.role, segmentIndex: origin.segment, media: media))
                }
            }
        }
        // Range items carry the first segment of their file; give each the segment it belongs to.
        if items.contains(where: { $0.range != nil && $0.role == .segment }) {
            var firstSegment: [String: Int] = [:]
            for index in segments.indices {
                guard let range = segments[index].byteRange,
                    let url = rewriter.resolve(segments[index].uri), let name = names[url.absoluteString]
                else { continue }
                let id = "\(name)@\(range.offset)+\(range.length)"
                if firstSegment[id] == nil { firstSegment[id] = index }
            }
            items = items.map { item in
                guard let index = firstSegment[item.id], item.role == .segment else { return item }
                return HLSDownloadItem(
                    id: item.id, url: item.url, localName: item.localName, range: item.range,
                    role: item.role, segmentIndex: index, media: media)
            }
        }
        self.items = items
        self.localNames = names
        self.segmentCount = segments.count
    }

    /// The playlist with every downloaded URI replaced by its local name (relative, so the folder
    /// can be moved); other URIs (rendition reports, parts of a finished low-latency stream) are
    /// made absolute so they still mean what they meant.
    func localPlaylist(_ playlist: HLSPlaylist, baseURL: URL) -> HLSPlaylist {
        HLSRewriter(baseURL: baseURL).rewrite(playlist) { url, _ in
            localNames[url.absoluteString] ?? url.absoluteString
        }
    }

    static func localName(for url: URL, role: HLSDownloadItem.Role, number: Int, hasMap: Bool) -> String {
        let given = url.pathExtension.lowercased()
        let usable =
            !given.isEmpty && given.count <= 5 && given.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        switch role {
        case .segment:
            let number = String(number)
            let padded = String(repeating: "0", count: max(0, 5 - number.count)) + number
            return "segment-\(padded).\(usable ? given : (hasMap ? "m4s" : "ts"))"
        case .map:
            return "init-\(number).\(usable ? given : "mp4")"
        case .key:
            return "key-\(number).key"
        }
    }
}
