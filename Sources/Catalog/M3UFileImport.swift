import MediaFormats

/// Parses a playlist file chunk by chunk straight into an import sink: one entry at a time is
/// held in memory, whatever the size of the playlist.
enum M3UFileImport {
    static func run(
        path: String,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        var parser = M3UParser()
        var mapper = M3UItemMapper()
        var bytesRead: Int64 = 0
        var entries = 0
        func handle(_ event: M3UParser.Event) throws {
            switch event {
            case .header(let playlistHeader):
                mapper.header = playlistHeader
                header.value = playlistHeader
            case .entry(let entry):
                switch mapper.map(entry) {
                case .item(let item): try sink.add(item)
                case .episode(let episode, let series): try sink.add(episode, of: series)
                }
                entries += 1
                progress(bytesRead, entries)
            case .warning:
                // Warnings are the parser's business; the M3U check command reports them.
                break
            }
        }
        try ChunkedFileReader().read(path: path) { chunk in
            bytesRead += Int64(chunk.count)
            try parser.feed(chunk, onEvent: handle)
        }
        try parser.finish(onEvent: handle)
    }
}
