/// Where a download stands, reported after the plan is known and after each file completes.
///
/// An item is one file to fetch: a segment, a key, an init section, or one byte range of a file
/// that several segments share.
public struct HLSDownloadProgress: Sendable, Hashable {
    /// Items on disk, synced and recorded (including those found done when resuming).
    public var completedItems: Int
    /// Items the download needs in all.
    public var totalItems: Int
    /// Bytes of the completed items.
    public var completedBytes: Int64
    /// Items found complete on disk when the download started (a resume), included in
    /// `completedItems`.
    public var resumedItems: Int

    public init(completedItems: Int, totalItems: Int, completedBytes: Int64, resumedItems: Int) {
        self.completedItems = completedItems
        self.totalItems = totalItems
        self.completedBytes = completedBytes
        self.resumedItems = resumedItems
    }

    /// `completedItems / totalItems`, 1 when there is nothing to do.
    public var fractionCompleted: Double {
        totalItems == 0 ? 1 : Double(completedItems) / Double(totalItems)
    }
}
