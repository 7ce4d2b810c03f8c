import MediaFormats

/// Parses a playlist file chunk by chunk straight into an import sink, in constant memory
/// whatever the size of the playlist.
///
/// For the SQLite store, reading, parsing, mapping and encoding (names, identities, JSON) run on a
/// thread of their own and hand ``ImportBatch``es over, so the database thread does nothing but
/// run SQLite, a statement per batch: on two cores a 200,000-entry playlist imports in little
/// more than the time SQLite needs.
enum M3UFileImport {
    static func run(
        path: String,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        guard let sqliteSink = sink as? SQLiteImportSink else {
            try runSerially(path: path, into: sink, header: header, progress: progress)
            return
        }
        var entries = 0
        try ImportPipeline<ImportBatch>.run(
            produce: { emit in
                var encoder = ImportRowEncoder()
                var batch = ImportBatch(capacity: ImportBatch.standardSize)
                try parse(path: path, header: header) { mapped, bytesRead in
                    switch mapped {
                    case .item(let item): try encoder.encode(item, sourceBytes: bytesRead, into: &batch)
                    case .episode(let episode, let series):
                        try encoder.encode(episode, of: series, sourceBytes: bytesRead, into: &batch)
                    }
                    if batch.isFull {
                        try emit(batch)
                        batch = ImportBatch(capacity: ImportBatch.standardSize)
                    }
                }
                if !batch.rows.isEmpty { try emit(batch) }
            },
            consume: { batch in
                try sqliteSink.write(batch)
                for row in batch.rows {
                    entries += 1
                    progress(row.sourceBytes, entries)
                }
            }
        )
    }

    /// Any other sink: the same import, one entry at a time on the calling thread.
    private static func runSerially(
        path: String,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        var entries = 0
        try parse(path: path, header: header) { mapped, bytesRead in
            switch mapped {
            case .item(let item): try sink.add(item)
            case .episode(let episode, let series): try sink.add(episode, of: series)
            }
            entries += 1
            progress(bytesRead, entries)
        }
    }

    /// Reads and parses the file, handing each entry, mapped, to `body` with the bytes read so far.
    private static func parse(
        path: String,
        header: HeaderBox,
        _ body: (M3UItemMapper.Mapped, Int64) throws -> Void
    ) throws {
        var parser = M3UParser()
        var mapper = M3UItemMapper()
        var bytesRead: Int64 = 0
        func handle(_ event: M3UParser.Event) throws {
            switch event {
            case .header(let playlistHeader):
                mapper.header = playlistHeader
                header.value = playlistHeader
            case .entry(let entry):
                try body(mapper.map(entry), bytesRead)
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
