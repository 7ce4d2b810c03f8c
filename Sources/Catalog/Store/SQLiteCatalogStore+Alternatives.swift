import Foundation
import GRDB

/// A channel's alternatives: the same channel in other sources, tried in order when its stream
/// fails, and taken instead of it when its account has no free connection (several accounts of one
/// provider are pooled this way).
extension SQLiteCatalogStore {
    /// The alternatives of channel `itemID`, best first: the ones the user set, in the user's
    /// order; otherwise live channels of other sources with the same `tvg-id`, then with the same
    /// normalised name (see ``channelMatchName(_:)``), in source order. At most `limit`.
    public func alternatives(of itemID: Int64, limit: Int = 8) async throws -> [CatalogItem] {
        guard let item = try await item(id: itemID) else { throw CatalogError.itemNotFound(itemID) }
        let chosen = try await chosenAlternatives(of: itemID)
        if !chosen.isEmpty { return Array(chosen.prefix(limit)) }
        let name = Self.channelMatchName(item.name)
        // The name's longest word narrows the scan; names are compared normalised below.
        let word = Self.matchWords(item.name).max { $0.count < $1.count }.map(String.init) ?? ""
        let pattern = "%" + word.filter { $0.isLetter || $0.isNumber } + "%"
        let candidates = try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT i.*, 0 AS isFavourite, NULL AS checkOnline, NULL AS checkedAt, NULL AS checkReason
                    FROM catalogItem i
                    WHERE i.kind = 'live' AND i.sourceID <> ? AND i.url IS NOT NULL
                        AND ((? IS NOT NULL AND i.tvgID = ? COLLATE NOCASE) OR i.name LIKE ? ESCAPE '\\')
                    ORDER BY i.sourceID, i.position
                    LIMIT 500
                    """,
                arguments: [item.sourceID, item.tvgID?.nilIfEmpty, item.tvgID?.nilIfEmpty, pattern]
            ).map(Self.item(from:))
        }
        let byID = candidates.filter { candidate in
            guard let tvgID = item.tvgID?.nilIfEmpty, let other = candidate.tvgID?.nilIfEmpty else { return false }
            return tvgID.caseInsensitiveCompare(other) == .orderedSame
        }
        let byName = candidates.filter { !name.isEmpty && Self.channelMatchName($0.name) == name }
        var seen = Set<Int64>()
        return (byID + byName).filter { seen.insert($0.id).inserted }.prefix(limit).map { $0 }
    }

    /// The alternatives the user set for `itemID`, in order (empty: found automatically).
    public func chosenAlternatives(of itemID: Int64) async throws -> [CatalogItem] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT i.*, 0 AS isFavourite, NULL AS checkOnline, NULL AS checkedAt, NULL AS checkReason
                    FROM channelAlternative a JOIN catalogItem i ON i.id = a.alternativeID
                    WHERE a.itemID = ? ORDER BY a.position
                    """,
                arguments: [itemID]
            ).map(Self.item(from:))
        }
    }

    /// Sets the alternatives of `itemID` in order; an empty list goes back to automatic ones.
    /// Every id must be another live channel.
    public func setAlternatives(of itemID: Int64, to alternativeIDs: [Int64]) async throws {
        try await database.write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT kind = 'live' FROM catalogItem WHERE id = ?", arguments: [itemID]) == true
            else { throw CatalogError.itemNotFound(itemID) }
            try db.execute(sql: "DELETE FROM channelAlternative WHERE itemID = ?", arguments: [itemID])
            for (position, id) in alternativeIDs.enumerated() {
                guard id != itemID,
                    try Bool.fetchOne(
                        db, sql: "SELECT kind = 'live' FROM catalogItem WHERE id = ?", arguments: [id]) == true
                else { throw CatalogError.itemNotFound(id) }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO channelAlternative (itemID, alternativeID, position) VALUES (?, ?, ?)",
                    arguments: [itemID, id, position])
            }
        }
    }

    /// A channel name as matching compares it: letters and digits only, lowercased, without the
    /// quality words providers add ("HD", "FHD", "4K", "1080p" …) and without a "UK:"-style prefix,
    /// so "UK: BBC One HD" and "BBC ONE" match.
    public static func channelMatchName(_ name: String) -> String {
        matchWords(name).joined()
    }

    static let qualityWords: Set<Substring> = [
        "hd", "fhd", "uhd", "sd", "4k", "8k", "hevc", "h265", "h264", "1080p", "720p", "hq", "raw",
    ]

    static func matchWords(_ name: String) -> [Substring] {
        var text = Substring(name.lowercased())
        if let mark = text.firstIndex(where: { $0 == ":" || $0 == "|" }),
            text.distance(from: text.startIndex, to: mark) <= 4
        {
            text = text[text.index(after: mark)...]
        }
        return text.split { !($0.isLetter || $0.isNumber) }.filter { !qualityWords.contains($0) }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
