import Logging

extension CatalogImporter {
    /// Matches by name the live channels no guide reaches by mapping, `tvg-id` or exact name (see
    /// ``GuideMatcher``), and stores the matches that apply by themselves in place of the last
    /// run's; the rest stay suggestions for the user. Runs after every playlist and guide import.
    /// Returns how many channels were matched.
    @discardableResult
    public func matchGuide() async throws -> Int {
        let work = try await store.guideMatchWork()
        var matches: [GuideAutomaticMatch] = []
        if !work.channels.isEmpty, !work.subjects.isEmpty {
            let matcher = GuideMatcher(channels: work.channels)
            for subject in work.subjects {
                try Task.checkCancellation()
                // Refused guide channels are not candidates: the next best may apply instead.
                let suggestions = matcher.suggestions(
                    forName: subject.name, group: subject.group, excluding: subject.refused)
                guard let chosen = GuideMatcher.automatic(suggestions) else { continue }
                matches.append(
                    GuideAutomaticMatch(
                        kind: subject.kind, identity: subject.identity, epgID: chosen.epgID, score: chosen.score))
            }
        }
        try await store.replaceAutomaticGuideMatches(matches)
        logger.info(
            "Guide matched by name",
            metadata: [
                "channels": "\(work.subjects.count)", "matched": "\(matches.count)",
                "guideChannels": "\(work.channels.count)",
            ])
        return matches.count
    }

    /// ``matchGuide()`` after an import: its failure is logged, never the import's.
    func matchGuideAfterImport(logger: Logger) async {
        do {
            try await matchGuide()
        } catch {
            logger.warning("Cannot match channels to the guide by name", metadata: ["error": "\(error)"])
        }
    }
}
