import Foundation

/// A finished HLS download: a folder that plays offline from `localPlaylist`.
public struct HLSDownloadResult: Sendable, Hashable {
    /// The destination folder.
    public var directory: URL
    /// `index.m3u8` in `directory`: the media playlist with every segment, key and init section
    /// pointing at its local file by a relative name.
    public var localPlaylist: URL
    /// The media playlist that was downloaded (the chosen variant of a master playlist), as
    /// finally fetched (after redirects).
    public var mediaPlaylistURL: URL
    /// `BANDWIDTH` of the chosen variant; nil when the request named a media playlist.
    public var variantBandwidth: Int?
    /// Number of media segments.
    public var segmentCount: Int
    /// Number of files and byte ranges fetched in all (segments, keys, init sections).
    public var itemCount: Int
    /// Bytes of every item.
    public var totalBytes: Int64
    /// Items that were already complete from an earlier call and were not fetched again.
    public var resumedItems: Int
}
