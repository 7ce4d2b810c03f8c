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
        reader: ChunkedFileReader,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        guard let sqliteSink = sink as? SQLiteImportSink else {
            try runSerially(path: path, reader: reader, into: sink, header: header, progress: progress)
            return
        }
        var entries = 0
        try ImportPipeline<ImportBatch>.run(
            produce: { emit in
                var encoder = ImportRowEncoder()
                var batch = ImportBatch(capacity: ImportBatch.standardSize)
                try parse(path: path, reader: reader, header: header) { mapped, bytesRead in
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
        reader: ChunkedFileReader,
        into sink: any CatalogImportSink,
        header: HeaderBox,
        progress: (_ bytes: Int64, _ entries: Int) -> Void
    ) throws {
        var entries = 0
        try parse(path: path, reader: reader, header: header) { mapped, bytesRead in
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
        reader: ChunkedFileReader,
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
                try body(screened(mapper.map(entry), refused: header.refused), bytesRead)
            case .warning:
                // Warnings are the parser's business; the M3U check command reports them.
                break
            }
        }
        try reader.read(path: path) { chunk in
            bytesRead += Int64(chunk.count)
            try parser.feed(chunk, onEvent: handle)
        }
        try parser.finish(onEvent: handle)
    }

    /// `mapped` without the locations a provider may not name: a logo that is not http(s), and a
    /// catch-up template with another scheme (`file:`), or one used as the whole URL that is not
    /// http(s). Each is recorded in `refused` for the source's status.
    static func screened(_ mapped: M3UItemMapper.Mapped, refused: RefusedLocations) -> M3UItemMapper.Mapped {
        func screen(_ draft: CatalogItemDraft) -> CatalogItemDraft {
            var draft = draft
            if let logo = draft.logo, !ProviderLocation.isHTTP(logo) {
                refused.record([logo], as: "logo")
                draft.logo = nil
            }
            if let template = draft.catchup?.source, !ProviderLocation.isHTTP(template) {
                // Flussonic and Xtream types use the template as the whole URL; the others append it.
                let type = draft.catchup?.type.lowercased() ?? "default"
                let whole = ["flussonic", "flussonic-hls", "flussonic-ts", "fs", "xc"].contains(type)
                if ProviderLocation.hasScheme(template) || whole {
                    refused.record([template], as: "catch-up template")
                    draft.catchup?.source = nil
                }
            }
            return draft
        }
        switch mapped {
        case .item(let item): return .item(screen(item))
        case .episode(let episode, let series): return .episode(episode, series: screen(series))
        }
    }
}
