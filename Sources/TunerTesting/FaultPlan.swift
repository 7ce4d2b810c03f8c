/// Random faults applied to `/files` requests that ask for no explicit fault, reproducible from `seed`.
///
/// Each affected request draws, in order: a server error (503 instead of the content), an ignored
/// `Range` (200 with everything instead of 206), and a reset (the connection closes at a random
/// offset inside the body). Assigning a plan to `TestOrigin.faults` restarts its random sequence.
public struct FaultPlan: Sendable, Hashable {
    /// Chance that the connection closes at a random offset inside the body.
    public var resetProbability: Double
    /// Chance of a 503 instead of the content.
    public var serverErrorProbability: Double
    /// Chance that a `Range` request is answered with 200 and the whole body.
    public var ignoreRangeProbability: Double
    /// Seeds the random sequence, so a failing run can be repeated exactly.
    public var seed: UInt64

    /// No random faults: every request is answered faithfully.
    public static let none = FaultPlan()

    public init(
        resetProbability: Double = 0,
        serverErrorProbability: Double = 0,
        ignoreRangeProbability: Double = 0,
        seed: UInt64 = 0
    ) {
        self.resetProbability = resetProbability
        self.serverErrorProbability = serverErrorProbability
        self.ignoreRangeProbability = ignoreRangeProbability
        self.seed = seed
    }

    /// True when no fault can ever be drawn, so the origin can skip the lock-protected generator.
    var isNone: Bool {
        resetProbability <= 0 && serverErrorProbability <= 0 && ignoreRangeProbability <= 0
    }
}

/// The faults drawn from a `FaultPlan` for one request.
struct FaultDraw {
    var serverError = false
    var ignoreRange = false
    /// Where in the body to close, as a fraction of the bytes about to be sent.
    var resetFraction: Double?

    static let none = FaultDraw()
}
