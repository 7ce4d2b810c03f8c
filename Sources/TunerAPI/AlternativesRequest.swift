/// `PUT /api/v1/channels/{id}/alternatives {"ids": [7, 12]}`: what a live channel fails over to,
/// in order; `[]` goes back to automatic ones.
public struct AlternativesRequest: Codable, Sendable, Equatable {
    public var ids: [Int64]

    public init(ids: [Int64]) {
        self.ids = ids
    }
}
