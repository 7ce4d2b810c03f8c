/// A video resolution (`RESOLUTION=1920x1080`).
public struct HLSResolution: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The `WIDTHxHEIGHT` form used in playlists.
    public var description: String { "\(width)x\(height)" }
}
