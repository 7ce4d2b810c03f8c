extension HLSPlaylist: CustomStringConvertible {
    /// The playlist as UTF-8 bytes: each line as parsed (or as rewritten), ended by LF.
    ///
    /// For a parsed playlist this is the input with CRLF and CR line endings turned into LF,
    /// trailing whitespace removed from each line, a final LF added when missing, and a byte order
    /// mark dropped; every other byte is unchanged.
    public func serializedBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(storage.count + lineRecords.count)
        storage.withUnsafeBufferPointer { p in
            for record in lineRecords {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: p[record.lineStart..<record.end]))
                output.append(0x0A)
            }
        }
        return output
    }

    /// The playlist as text; see `serializedBytes()`. Bytes that are not UTF-8 (which only a
    /// lenient parse accepts) become U+FFFD here, so use `serializedBytes()` to pass them through.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    public var description: String { serialized() }
}
