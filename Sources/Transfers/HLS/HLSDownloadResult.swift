import Foundation

/// A finished HLS download: a folder that plays offline from `localPlaylist`.
public struct HLSDownloadResult: Sendable, Hashable {
    /// The destination folder.
    public var directory: URL
    /// `index.m3u8` in `directory`: the media playlist with every segment, key and init section
    /// pointing at its local file by a relative name; or, when the variant has a separate audio
    /// rendition, a master playlist naming the local `video.m3u8` and `audio.m3u8`.
    public var localPlaylist: URL
    /// The media playlist that was downloaded (the chosen variant of a master playlist), as
    /// finally fetched (after redirects).
    public var mediaPlaylistURL: URL
    /// `BANDWIDTH` of the chosen variant; nil when the request named a media playlist.
    public var variantBandwidth: Int?
    /// Number of media segments of the variant (or media playlist).
    public var segmentCount: Int
    /// The separate audio rendition's playlist that was downloaded too, as finally fetched; nil
    /// when the variant's own segments carry the sound.
    public var audioPlaylistURL: URL?
    /// `LANGUAGE` of that audio rendition, when it has one.
    public var audioLanguage: String?
    /// Number of media segments of the audio rendition (0 without one).
    public var audioSegmentCount: Int
    /// Number of files and byte ranges fetched in all (segments, keys, init sections, of the
    /// variant and of its audio rendition).
    public var itemCount: Int
    /// Bytes of every item.
    public var totalBytes: Int64
    /// Items that were already complete from an earlier call and were not fetched again.
    public var resumedItems: Int
}
