/// A tiny seedable random generator, so generated content, fault sequences and randomized tests
/// are the same on every run and platform (the standard library's generator cannot be seeded).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    /// The SplitMix64 finaliser on its own: a cheap, well-spread hash of one 64-bit value.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A uniformly distributed value in `0..<1`, built from 53 random bits (a Double's precision).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
