import MediaFormats

/// Parses a playlist file chunk by chunk straight into an import sink, in constant memory
/// whatever the size of the playlist.
///
/// Reading, parsing and mapping run on a thread of their own and hand entries over in batches,
/// so the database thread does nothing but write: on two cores a 200,000-entry playlist imports
/// in little more than the time SQLite needs.
enum M3UFileImport {
    /// Entries per hand-over: large enough that locking is negligible, small enough to stay in cache.
    static let batchSize = 1024

    static func run(
        path: String,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        var entries = 0
        try ImportPipeline<(M3UItemMapper.Mapped, String, Int64)>.run(
            produce: { emit in
                var parser = M3UParser()
                var mapper = M3UItemMapper()
                var bytesRead: Int64 = 0
                var batch: [(M3UItemMapper.Mapped, String, Int64)] = []
                batch.reserveCapacity(batchSize)
                func handle(_ event: M3UParser.Event) throws {
                    switch event {
                    case .header(let playlistHeader):
                        mapper.header = playlistHeader
                        header.value = playlistHeader
                    case .entry(let entry):
                        // Names are normalized here rather than on the database thread, which is the busier one.
                        let mapped = mapper.map(entry)
                        let normalized: String
                        switch mapped {
                        case .item(let item): normalized = CatalogIdentity.normalizedName(item.name)
                        case .episode(_, let series): normalized = CatalogIdentity.normalizedName(series.name)
                        }
                        batch.append((mapped, normalized, bytesRead))
                        if batch.count == batchSize {
                            try emit(batch)
                            batch.removeAll(keepingCapacity: true)
                        }
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
                if !batch.isEmpty { try emit(batch) }
            },
            consume: { batch in
                let sqliteSink = sink as? SQLiteImportSink
                for (mapped, normalized, bytes) in batch {
                    switch (mapped, sqliteSink) {
                    case (.item(let item), let sqliteSink?): try sqliteSink.add(item, normalizedName: normalized)
                    case (.episode(let episode, let series), let sqliteSink?): try sqliteSink.add(episode, of: series, seriesNormalizedName: normalized)
                    case (.item(let item), nil): try sink.add(item)
                    case (.episode(let episode, let series), nil): try sink.add(episode, of: series)
                    }
                    entries += 1
                    progress(bytes, entries)
                }
            }
        )
    }
}
