import Foundation
import MediaFormats

/// The playlist header read inside the import transaction, handed back to the async caller.
final class HeaderBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: M3UPlaylistHeader?
    /// Locations of the playlist refused as not http(s).
    let refused = RefusedLocations()
    var value: M3UPlaylistHeader? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
