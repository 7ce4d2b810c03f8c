/// One table's copy: the same table in both engines, the columns in the order rows travel, and
/// the key that orders rows the same way on both sides for the checksum.
struct CopyPlan: Sendable {
    var source: CopyTable
    var target: CopyTable
    var sourceColumns: [CopyTable.Column]
    var targetColumns: [CopyTable.Column]
    /// The ordering columns, in each engine's spelling.
    var sourceOrder: [CopyTable.Column]
    var targetOrder: [CopyTable.Column]
    /// Source columns the target has no place for (derived data of the source's engine).
    var leftOut: [String]

    var key: String { source.key }

    /// Pairs the tables of both engines by name (case-insensitively), parents before children.
    /// Throws when the target lacks a table the source holds.
    static func plans(source: [CopyTable], target: [CopyTable]) throws(FeatureError) -> [CopyPlan] {
        let targets = Dictionary(target.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var plans: [CopyPlan] = []
        for table in try ordered(source) {
            guard let other = targets[table.key] else {
                throw FeatureError(
                    .failed,
                    "the target has no table \(table.name); both databases must come from the same Tuner version")
            }
            // Same migrations, same version: a column only the source has is one its engine
            // derives (PostgreSQL's search data), which the target keeps its own way or not at
            // all. It stays behind, and the report names it.
            let kept = table.columns.filter { other.column($0.key) != nil }
            let targetColumns = kept.compactMap { other.column($0.key) }
            let leftOut = table.columns.filter { other.column($0.key) == nil }.map(\.name)
            // The source's key orders both sides; a table without one is ordered by every column.
            let orderKeys = table.primaryKey.isEmpty ? kept.map(\.key) : table.primaryKey
            let sourceOrder = orderKeys.compactMap { key in kept.first { $0.key == key } }
            let targetOrder = orderKeys.compactMap { other.column($0) }
            guard sourceOrder.count == orderKeys.count, targetOrder.count == orderKeys.count else {
                throw FeatureError(.failed, "the key of table \(table.name) names a column that is not copied")
            }
            plans.append(
                CopyPlan(
                    source: table, target: other, sourceColumns: kept, targetColumns: targetColumns,
                    sourceOrder: sourceOrder, targetOrder: targetOrder, leftOut: leftOut))
        }
        return plans
    }

    /// The tables with every parent before its children (by name, then by foreign keys), so rows
    /// go in without breaking a foreign key even where constraints cannot be deferred.
    static func ordered(_ tables: [CopyTable]) throws(FeatureError) -> [CopyTable] {
        var remaining = tables.sorted { $0.key < $1.key }
        let known = Set(tables.map(\.key))
        var placed = Set<String>()
        var result: [CopyTable] = []
        while !remaining.isEmpty {
            guard
                let index = remaining.firstIndex(where: { table in
                    table.parents.allSatisfy { $0 == table.key || placed.contains($0) || !known.contains($0) }
                })
            else {
                throw FeatureError(
                    .failed, "the foreign keys of tables \(remaining.map(\.name).joined(separator: ", ")) form a cycle")
            }
            let table = remaining.remove(at: index)
            placed.insert(table.key)
            result.append(table)
        }
        return result
    }
}
