import MediaFormats

/// Parses an XMLTV file (plain or gzipped) chunk by chunk into a guide sink.
enum XMLTVFileImport {
    static func run(
        path: String,
        reader: ChunkedFileReader,
        into sink: any GuideImportSink,
        endingAfter cutoff: Int64,
        languages: [String],
        onProgramme: (_ bytes: Int64) -> Void
    ) throws {
        var parser = XMLTVParser()
        var bytesRead: Int64 = 0
        // Programmes without a stop time end when the next one on their channel starts, so each
        // channel's latest such programme waits here for its successor.
        var open: [String: GuideProgramme] = [:]

        func store(_ programme: GuideProgramme) throws {
            guard programme.stop >= cutoff else {
                sink.skipProgramme()
                return
            }
            try sink.addProgramme(programme)
            onProgramme(bytesRead)
        }

        func handle(_ event: XMLTVParser.Event) throws {
            switch event {
            case .channel(let channel):
                try sink.addChannel(
                    epgID: channel.id, name: channel.displayNames.xmltvBest(for: languages) ?? channel.id,
                    icon: channel.icons.first?.src
                )
            case .programme(let programme):
                let start = programme.start.secondsSince1970
                if var waiting = open.removeValue(forKey: programme.channel) {
                    waiting.stop = start
                    try store(waiting)
                }
                let season = programme.seasonEpisode
                var stored = GuideProgramme(
                    id: 0, epgID: programme.channel, start: start, stop: programme.stop?.secondsSince1970 ?? start,
                    title: programme.titles.xmltvBest(for: languages) ?? "",
                    subtitle: programme.subTitles.xmltvBest(for: languages),
                    description: programme.descriptions.xmltvBest(for: languages),
                    category: programme.categories.xmltvBest(for: languages), icon: programme.icons.first?.src,
                    season: season?.season, episode: season?.episode, catchupID: programme.catchupID
                )
                if programme.stop == nil {
                    open[programme.channel] = stored
                } else {
                    stored.stop = max(stored.stop, stored.start)
                    try store(stored)
                }
            case .warning:
                break
            }
        }

        try reader.read(path: path) { chunk in
            bytesRead += Int64(chunk.count)
            try parser.feed(chunk, onEvent: handle)
        }
        try parser.finish(onEvent: handle)
        // The last programme of a channel without a stop time: assume an hour rather than drop it.
        for var waiting in open.values.sorted(by: { $0.start < $1.start }) {
            waiting.stop = waiting.start + 3600
            try store(waiting)
        }
    }
}
