/// What a live event is about; a client subscribes to the topics it shows.
public enum EventTopic: String, Sendable, CaseIterable, Codable {
    case transfers
    case imports
    case cache
    case streams
    case guide
    /// The DVR: recordings scheduled, running, done; rules.
    case recordings
    /// Output profiles: a lineup changed in the lineup editor.
    case outputs
    /// The hub's own messages (`resync`), sent whatever the topics.
    case server
}

/// One event of the hub: a sequence number (one counter for the whole server run), a topic, a
/// type such as `transfer.progress`, an optional key under which later events replace earlier ones
/// a slow client has not read yet, and its data as JSON, encoded once for every subscriber.
public struct ServerEvent: Sendable, Equatable {
    public let sequence: UInt64
    public let topic: EventTopic
    public let type: String
    /// Events with the same key describe the same thing (`transfer:7`): only the newest matters.
    public let key: String?
    /// The data as a JSON value (an object, usually).
    public let data: [UInt8]

    public init(sequence: UInt64, topic: EventTopic, type: String, key: String?, data: [UInt8]) {
        self.sequence = sequence
        self.topic = topic
        self.type = type
        self.key = key
        self.data = data
    }

    /// The message a client receives: `{"seq":N,"epoch":"…","topic":"…","type":"…","data":…}`.
    /// The epoch changes when the server restarts: a client that sees another one reloads.
    public func message(epoch: String) -> String {
        var text = #"{"seq":"# + String(sequence) + #","epoch":""# + epoch + #"","topic":""# + topic.rawValue
        text += #"","type":""# + type + #"","data":"#
        text += data.isEmpty ? "null" : String(decoding: data, as: UTF8.self)
        return text + "}"
    }
}
