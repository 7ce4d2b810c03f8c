import Foundation
import MediaFormats

/// What a download takes from a master playlist: one variant, and the separate audio rendition it
/// plays its sound from when it has one; and the local master playlist that ties their local
/// copies together. Pure, so the same master always gives the same choice.
///
/// The audio rendition is one of the variant's `AUDIO` group (`#EXT-X-MEDIA:TYPE=AUDIO`): the one
/// in the wanted language when one is asked for and offered, else the group's `DEFAULT=YES`, else
/// its first `AUTOSELECT=YES`, else its first. A rendition without a `URI` is carried in the
/// variant's own segments, so there is nothing separate to fetch.
struct HLSDownloadSelection: Sendable {
    let variant: HLSVariant
    let variantURL: URL
    /// The rendition whose playlist is downloaded beside the variant's; nil when the variant's
    /// own segments carry the sound.
    let audio: HLSRendition?
    let audioURL: URL?

    init(master: HLSPlaylist, url: URL, rendition: HLSDownloadRendition, audioLanguage: String?)
        throws(TransferError)
    {
        let rewriter = HLSRewriter(baseURL: url)
        let variant = try Self.chooseVariant(master, rendition: rendition, url: url)
        guard let variantURL = rewriter.resolve(variant.uri) else {
            throw TransferError.hls(
                .invalidPlaylist, url: url, "cannot read the variant URI \"\(variant.uri)\" as a URL")
        }
        self.variant = variant
        self.variantURL = variantURL

        if let group = variant.audioGroup,
            let chosen = master.audioRendition(group: group, language: audioLanguage),
            let uri = chosen.uri
        {
            guard let audioURL = rewriter.resolve(uri) else {
                throw TransferError.hls(
                    .invalidPlaylist, url: url, rendition: HLSDownloadMedia.audio.label,
                    """
                    cannot read the URI \"\(uri)\" of the audio rendition \"\(chosen.name)\" (line \
                    \(chosen.line)) as a URL
                    """
                )
            }
            // Some masters name the variant's own (muxed) playlist as its audio rendition too:
            // downloading it twice would add nothing.
            if audioURL.absoluteString != variantURL.absoluteString {
                self.audio = chosen
                self.audioURL = audioURL
                return
            }
        }
        self.audio = nil
        self.audioURL = nil
    }

    /// The variant with the highest `BANDWIDTH` (not above the limit, when there is one); I-frame
    /// variants are never chosen.
    static func chooseVariant(_ master: HLSPlaylist, rendition: HLSDownloadRendition, url: URL) throws(TransferError)
        -> HLSVariant
    {
        let candidates = master.variants.filter { !$0.isIFrameOnly }
        let limit: Int? =
            switch rendition.choice {
            case .highest: nil
            case .highestAtMost(let limit): limit
            }
        let fitting = candidates.filter { limit == nil || ($0.bandwidth ?? 0) <= limit! }
        guard let best = fitting.max(by: { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }) else {
            let offered = candidates.compactMap(\.bandwidth).sorted().map(String.init).joined(separator: ", ")
            throw TransferError.hls(
                .noMatchingVariant, url: url,
                candidates.isEmpty
                    ? "the master playlist has no variant"
                    : "no variant has a BANDWIDTH within \(rendition); offered: \(offered)")
        }
        return best
    }

    /// The local master playlist: the chosen rendition's `#EXT-X-MEDIA` and the variant's
    /// `#EXT-X-STREAM-INF` with their attributes as the origin wrote them (variables applied),
    /// the URIs replaced by the local playlists' names. The rendition becomes `DEFAULT=YES` and
    /// `AUTOSELECT=YES` (it is the only one); the variant loses `SUBTITLES` and `VIDEO`, whose
    /// renditions are not downloaded and which a player would otherwise look for. In-band
    /// closed-caption renditions of the variant are kept (they have no URI).
    func localMaster(of master: HLSPlaylist, videoPlaylist: String, audioPlaylist: String) -> String {
        guard let audio else {
            preconditionFailure("a local master playlist is only written for a separate audio rendition")
        }
        var lines = ["#EXTM3U"]
        if let version = master.version { lines.append("#EXT-X-VERSION:\(version)") }
        if master.hasIndependentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        var media = audio.attributes
        media["DEFAULT"] = .unquoted("YES")
        media["AUTOSELECT"] = .unquoted("YES")
        media["URI"] = .quoted(audioPlaylist)
        lines.append("#EXT-X-MEDIA:" + media.description)
        if let captions = variant.closedCaptionsGroup {
            for rendition in master.renditions where rendition.type == .closedCaptions && rendition.groupID == captions
            {
                lines.append("#EXT-X-MEDIA:" + rendition.attributes.description)
            }
        }
        var streamInfo = variant.attributes
        streamInfo["SUBTITLES"] = nil
        streamInfo["VIDEO"] = nil
        lines.append("#EXT-X-STREAM-INF:" + streamInfo.description)
        lines.append(videoPlaylist)
        return lines.joined(separator: "\n") + "\n"
    }
}
