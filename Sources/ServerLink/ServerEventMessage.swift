import Foundation

/// One event of the server's live events (`/api/v1/events`): its place in the server's sequence,
/// the run (epoch) it belongs to, its topic and type, and its data as JSON.
public struct ServerEventMessage: Sendable, Hashable {
    public let sequence: UInt64
    /// The server run: a new epoch means the server restarted and the client must reload.
    public let epoch: String
    /// `transfers`, `imports`, `cache`, `streams`, or `server` for the hub's own (`resync`).
    public let topic: String
    /// Like `transfer.progress`, `import.finished`, `resync`.
    public let type: String
    /// The event's `data`, as JSON (`null` when it has none).
    public let data: Data

    public init(sequence: UInt64, epoch: String, topic: String, type: String, data: Data) {
        self.sequence = sequence
        self.epoch = epoch
        self.topic = topic
        self.type = type
        self.data = data
    }

    /// The data as `type`.
    public func decodeData<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }

    /// Parses one text message of the events WebSocket: an event, or the opening
    /// `{"hello":{"epoch":…,"seq":…}}` (returned with type `hello` and topic `server`). Nil when
    /// it is neither.
    public static func parse(_ text: String) -> ServerEventMessage? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return nil
        }
        if let hello = object["hello"] as? [String: Any] {
            guard let epoch = hello["epoch"] as? String, let sequence = Self.sequence(hello["seq"]) else { return nil }
            return ServerEventMessage(sequence: sequence, epoch: epoch, topic: "server", type: "hello", data: Data())
        }
        guard let sequence = Self.sequence(object["seq"]), let epoch = object["epoch"] as? String,
            let topic = object["topic"] as? String, let type = object["type"] as? String
        else { return nil }
        let data =
            object["data"].flatMap { value in
                value is NSNull ? nil : try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            } ?? Data("null".utf8)
        return ServerEventMessage(sequence: sequence, epoch: epoch, topic: topic, type: type, data: data)
    }

    private static func sequence(_ value: Any?) -> UInt64? {
        guard let number = value as? NSNumber, number.int64Value >= 0 else { return nil }
        return UInt64(number.int64Value)
    }
}
