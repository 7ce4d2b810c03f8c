import NIOCore
import TunerStorage

/// Receives one guide import for ``PostgresCatalogStore/replaceGuide(ofSource:produce:)`` on the
/// parser's thread, and turns it into `COPY` batches of programmes for the staging table.
///
/// Programmes name their channel by its place in ``channels`` (ids are given when the channels are
/// stored, after the whole guide is read), so nothing here waits on the database. Channels are
/// merged as SQLite's upsert merges them: the first spelling of an id (ignoring case) stays, and
/// each of name and icon keeps the first value that is not nil.
final class PostgresGuideSink: GuideImportSink {
    /// What the parser's thread hands to the connection.
    enum Batch: Sendable {
        /// Rows of ``PostgresGuideSink/programmeColumns`` in COPY's text format.
        case programmes(ByteBuffer)
        /// The end: every channel, in order, and the counts.
        case finished([Channel], GuideImportCounts)
    }

    /// A channel of the guide as it will be stored.
    struct Channel: Sendable {
        var epgID: String
        var name: String?
        var normalizedName: String?
        var icon: String?
    }

    /// The staging table's columns, in the order rows are written.
    static let programmeColumns = [
        "ordinal", "channel", "start", "stop", "title", "subtitle", "description", "category", "icon", "season",
        "episode", "catchupid",
    ]

    /// About a megabyte per batch: large enough that COPY runs at full speed, small enough that
    /// the few batches in flight stay a few megabytes.
    static let batchBytes = 1 << 20

    private let emit: (Batch) throws -> Void
    private var channels: [Channel] = []
    private var places: [String: Int] = [:]
    private var rows = PostgresCopyText(capacity: batchBytes + batchBytes / 8)
    private var ordinal: Int64 = 0
    private(set) var counts = GuideImportCounts()

    private init(emit: @escaping (Batch) throws -> Void) {
        self.emit = emit
    }

    /// Runs `produce` with a sink that sends what it receives to `emit`, ending with
    /// ``Batch/finished(_:_:)``.
    static func run(
        _ produce: (any GuideImportSink) throws -> Void, emit: (Batch) throws -> Void
    ) throws {
        try withoutActuallyEscaping(emit) { emit in
            let sink = PostgresGuideSink(emit: emit)
            try produce(sink)
            try sink.flush()
            try emit(.finished(sink.channels, sink.counts))
        }
    }

    func addChannel(epgID: String, name: String?, icon: String?) throws {
        _ = place(epgID: epgID, name: name, icon: icon)
    }

    func addProgramme(_ programme: GuideProgramme) throws {
        guard programme.stop > programme.start else {
            counts.skipped += 1
            return
        }
        // Guides may list programmes of channels they never declare.
        let channel = places[programme.epgID.lowercased()] ?? place(epgID: programme.epgID, name: nil, icon: nil)
        rows.integer(ordinal)
        rows.integer(channel)
        rows.integer(programme.start)
        rows.integer(programme.stop)
        rows.text(programme.title)
        rows.text(programme.subtitle)
        rows.text(programme.description)
        rows.text(programme.category)
        rows.text(programme.icon)
        rows.integer(programme.season)
        rows.integer(programme.episode)
        rows.text(programme.catchupID)
        rows.endRow()
        ordinal += 1
        counts.programmes += 1
        if rows.buffer.readableBytes >= Self.batchBytes { try flush() }
    }

    func skipProgramme() { counts.skipped += 1 }

    /// The place of the channel `epgID` (ignoring case), added or merged.
    private func place(epgID: String, name: String?, icon: String?) -> Int {
        let key = epgID.lowercased()
        if let place = places[key] {
            channels[place].name = channels[place].name ?? name
            channels[place].normalizedName = channels[place].normalizedName ?? name.map(CatalogIdentity.normalizedName)
            channels[place].icon = channels[place].icon ?? icon
            return place
        }
        channels.append(
            Channel(epgID: epgID, name: name, normalizedName: name.map(CatalogIdentity.normalizedName), icon: icon))
        places[key] = channels.count - 1
        counts.channels += 1
        return channels.count - 1
    }

    private func flush() throws {
        guard rows.buffer.readableBytes > 0 else { return }
        try emit(.programmes(rows.take(reserving: Self.batchBytes + Self.batchBytes / 8)))
    }
}
