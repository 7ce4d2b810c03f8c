/// A sub-range of a resource: `length` bytes starting at `offset`, as written in
/// `#EXT-X-BYTERANGE`, `#EXT-X-MAP:BYTERANGE=` and `#EXT-X-PART:BYTERANGE=` (`n@o`).
public struct HLSByteRange: Sendable, Hashable, CustomStringConvertible {
    /// Number of bytes.
    public var length: Int
    /// Offset of the first byte from the start of the resource.
    public var offset: Int

    public init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }

    /// The byte positions covered, ready for an HTTP `Range` header (`bytes=lower-(upper-1)`).
    public var range: Range<Int> { offset..<(offset + length) }

    /// The `n@o` form used in playlists.
    public var description: String { "\(length)@\(offset)" }
}
