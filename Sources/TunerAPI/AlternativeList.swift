/// `GET`/`PUT /api/v1/channels/{id}/alternatives`: what a channel fails over to, in order.
public struct AlternativeList: Codable, Sendable, Equatable {
    /// Whether the user chose them (else they were found by tvg-id and name).
    public var chosen: Bool
    public var alternatives: [ChannelAnswer]

    public init(chosen: Bool, alternatives: [ChannelAnswer]) {
        self.chosen = chosen
        self.alternatives = alternatives
    }
}
