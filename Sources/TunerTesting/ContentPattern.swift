import Crypto

/// The deterministic bytes of a generated `/files/<name>` resource, reproducible from its name and version.
///
/// Content is never stored: 512 MiB must stream faster than 1.5 GB/s even in debug builds, so every
/// byte comes from `memcpy` out of one precomputed pseudo-random block. The stream is cut into
/// periods of `period` bytes; period `p` is the block rotated by an amount hashed from the seed and
/// `p`. So byte `i` is `block[(rotation(i / period) + i % period) % period]`. Rotating (rather than
/// XOR-ing each period with a counter, which costs a pass over every byte) still makes every period
/// differ, so a cache that serves bytes from the wrong offset is caught at any distance, and two
/// names or two versions of one name differ from the first byte on.
struct ContentPattern: Sendable {
    /// A prime, so periods never line up with the power-of-two sizes that caches slice at.
    static let period = 65_521

    /// The block stored twice in a row: a run of up to `period` bytes starting anywhere in the first
    /// copy is then one contiguous copy, however the rotation wraps.
    private static let doubledBlock: [UInt8] = {
        var generator = SplitMix64(seed: 0x5475_6E65_7254_6573)
        var block = [UInt8]()
        block.reserveCapacity(period)
        while block.count < period {
            var word = generator.next()
            for _ in 0..<min(8, period - block.count) {
                block.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return block + block
    }()

    /// Seeds the rotations; the first 8 bytes of SHA-256 over the name and version.
    let seed: UInt64

    /// The seed in hex, used as the ETag's opaque part so the ETag changes exactly when the bytes do.
    let tag: String

    init(name: String, version: Int) {
        let digest = Array(SHA256.hash(data: Array("\(name)\u{0}\(version)".utf8)))
        var seed: UInt64 = 0
        for byte in digest.prefix(8) {
            seed = seed << 8 | UInt64(byte)
        }
        self.seed = seed
        self.tag = String(seed, radix: 16).leftPadded(to: 16)
    }

    /// Where period `index` starts reading in the block.
    private func rotation(ofPeriod index: Int) -> Int {
        Int(SplitMix64.mix(seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15) % UInt64(Self.period))
    }

    /// Fills `destination` with the content bytes that start at `offset`.
    func copyBytes(at offset: Int, into destination: UnsafeMutableRawBufferPointer) {
        guard let target = destination.baseAddress else { return }
        Self.doubledBlock.withUnsafeBytes { block in
            var written = 0
            while written < destination.count {
                let (periodIndex, offsetInPeriod) = (offset + written).quotientAndRemainder(dividingBy: Self.period)
                let run = min(Self.period - offsetInPeriod, destination.count - written)
                let start = rotation(ofPeriod: periodIndex) + offsetInPeriod
                (target + written).copyMemory(from: block.baseAddress! + start, byteCount: run)
                written += run
            }
        }
    }

    /// The content bytes in `range`, as an array (for tests to compare against).
    func bytes(in range: Range<Int>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initializedCount in
            copyBytes(at: range.lowerBound, into: UnsafeMutableRawBufferPointer(buffer))
            initializedCount = range.count
        }
    }
}
