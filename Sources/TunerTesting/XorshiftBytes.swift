/// `count` bytes that depend on `seed` (xorshift64), never all the same: upload and download
/// payloads that tests can regenerate instead of storing.
public func xorshiftBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed | 1
    var out = [UInt8](repeating: 0, count: count)
    for index in out.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        out[index] = UInt8(truncatingIfNeeded: state)
    }
    return out
}
