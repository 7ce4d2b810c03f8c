import Foundation
import MediaFormats
import Synchronization

/// The playlist header read inside the import transaction, handed back to the async caller.
final class HeaderBox: Sendable {
    private let stored = Mutex<M3UPlaylistHeader?>(nil)
    /// Locations of the playlist refused as not http(s).
    let refused = RefusedLocations()
    var value: M3UPlaylistHeader? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
