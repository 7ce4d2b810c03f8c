/// A JSON value from an Xtream Codes panel that should be a number or a string but may be either
/// (panels send `"stream_id": 12`, `"stream_id": "12"`, `"num": null` and `"rating": 7.5` alike).
struct XtreamValue: Decodable, Sendable, Hashable {
    let text: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            text = nil
        } else if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let double = try? container.decode(Double.self) {
            text = String(double)
        } else if let bool = try? container.decode(Bool.self) {
            text = bool ? "1" : "0"
        } else {
            text = nil
        }
    }

    /// The value as written, `nil` when empty.
    var string: String? { text.flatMap { $0.isEmpty ? nil : $0 } }
    var int: Int? { text.flatMap { Int($0) ?? Double($0).map { Int($0) } } }
}
