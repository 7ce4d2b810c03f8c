/// Items of an import, ready for the database: every text value is a range of one byte buffer.
///
/// A batch crosses from the parsing thread to the database thread as two allocations rather than
/// a dozen strings per entry, and SQLite binds its bytes in place (no copy, no `malloc`, no
/// reference counting on the database thread, which is the busier one).
struct ImportBatch: Sendable {
    /// Rows per batch: large enough that a statement's start and the hand-over between threads
    /// are negligible, small enough to stay in cache.
    static let standardSize = 1024
    /// A batch of huge entries is handed over before it has ``standardSize`` rows, once its texts
    /// reach this many bytes, so that the batches in flight stay small whatever the entries.
    static let textLimit = 16 << 20

    /// Whether the batch should be handed over now.
    var isFull: Bool { rows.count >= Self.standardSize || text.count >= Self.textLimit }

    /// The UTF-8 of every text of every row, back to back.
    var text: [UInt8] = []
    var rows: [ImportRow] = []

    init(capacity: Int = 0) {
        rows.reserveCapacity(capacity)
        text.reserveCapacity(capacity * 160)
    }

    /// Stores `value`'s bytes; `nil` stays a SQL NULL.
    mutating func append(_ value: String?) -> ImportText {
        guard var value else { return .null }
        let start = text.count
        value.withUTF8 { text.append(contentsOf: $0) }
        return ImportText(start: start, count: text.count - start)
    }

    mutating func removeAll() {
        text.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
    }
}

/// A text value of an ``ImportBatch``: a range of its bytes, or SQL NULL.
struct ImportText: Sendable {
    var start: Int
    /// Negative for NULL.
    var count: Int

    static let null = ImportText(start: 0, count: -1)
}

/// One row of an ``ImportBatch``: an item (channel, movie or series), or an episode with the
/// series it belongs to.
struct ImportRow: Sendable {
    /// What the row is, which is also what the import counts it as.
    enum Role: UInt8, Sendable {
        case item
        /// An episode whose series appeared before in this import: the item columns are unused.
        case episode
        /// An episode whose series appears for the first time: the item columns hold the series.
        case episodeOfNewSeries
    }

    var role: Role
    /// Which count the item adds to (`live`, `movie`, `series`; another kind counts nowhere).
    var countedKind: CatalogItemKind.Counted

    // catalogItem's columns, in the order of ``SQLiteImportSink``'s statement.
    var kind = ImportText.null
    var identity = ImportText.null
    var name = ImportText.null
    var normalizedName = ImportText.null
    /// Index of the group among the import's groups (see ``ImportRowEncoder``); -1 for none.
    var group: Int32 = -1
    var groupName = ImportText.null
    var tvgID = ImportText.null
    var tvgName = ImportText.null
    var logo = ImportText.null
    var number = ImportText.null
    var url = ImportText.null
    var headers = ImportText.null
    var catchupType = ImportText.null
    var catchupDays: Int?
    var catchupSource = ImportText.null
    var tvgShift: Double?
    var isRadio = false
    var providerID = ImportText.null
    /// The item's place in the source, in order of appearance.
    var position = 0

    // catalogEpisode's columns, for episodes.
    /// Index of the series among the import's series; -1 for an item.
    var series: Int32 = -1
    var season: Int?
    var episode: Int?
    var title = ImportText.null
    var episodeURL = ImportText.null
    var episodeHeaders = ImportText.null
    var duration: Double?
    /// The episode's place among the source's episodes.
    var episodePosition = 0

    /// How far into the source the row was read, for progress reports.
    var sourceBytes: Int64 = 0

    init(role: Role, countedKind: CatalogItemKind.Counted) {
        self.role = role
        self.countedKind = countedKind
    }
}

extension CatalogItemKind {
    /// The kinds ``CatalogImportCounts`` counts.
    enum Counted: UInt8, Sendable {
        case live, movie, series, other
    }

    var counted: Counted {
        switch self {
        case .live: .live
        case .movie: .movie
        case .series: .series
        default: .other
        }
    }
}
