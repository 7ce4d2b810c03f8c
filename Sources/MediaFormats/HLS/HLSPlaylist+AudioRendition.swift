extension HLSPlaylist {
    /// The audio rendition of `group` a player would pick: in `language` when one matches (the
    /// exact tag before one with the same primary language, `en` for `en-US`), then
    /// `DEFAULT=YES`, then `AUTOSELECT=YES`, then the first in the playlist. A language nobody
    /// offers falls back to the group's default rather than to nothing: the sound of the video
    /// matters more than its language. Nil when the group has no audio rendition.
    ///
    /// Offline downloads and cache preloads both use it, so they fetch the same audio.
    public func audioRendition(group: String, language: String? = nil) -> HLSRendition? {
        let members = renditions.filter { $0.type == .audio && $0.groupID == group }
        func languageScore(_ rendition: HLSRendition) -> Int {
            guard let wanted = language?.lowercased(), !wanted.isEmpty,
                let offered = rendition.language?.lowercased()
            else { return 0 }
            if offered == wanted { return 2 }
            let primary = { (tag: String) in tag.split(separator: "-").first.map(String.init) ?? tag }
            return primary(offered) == primary(wanted) ? 1 : 0
        }
        func rank(_ rendition: HLSRendition) -> (Int, Int, Int) {
            (languageScore(rendition), rendition.isDefault ? 1 : 0, rendition.isAutoselect ? 1 : 0)
        }
        // `max(by:)` replaces its pick only by a greater one, so the first of equals wins.
        return members.max { rank($0) < rank($1) }
    }
}
