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
    /// The value as an integer: `"42"`, or a decimal such as `"42.0"` that panels also send. A
    /// fraction is dropped; anything not finite or beyond ±2^53 (`1e300`, `nan`) is nil.
    var int: Int? {
        text.flatMap { text in
            if let exact = Int(text) { return exact }
            guard let number = Double(text), number.isFinite, number.magnitude <= 9_007_199_254_740_992 else {
                return nil
            }
            return Int(number)
        }
    }
}
