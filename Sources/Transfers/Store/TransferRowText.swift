import Foundation
import MediaFormats

/// How a task's structured fields are kept as text in the `transfer` table, the same in both
/// engines (so rows copy between them as they are): headers, history and properties as JSON,
/// dates as unix seconds.
enum TransferRowText {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The `headers` column.
    static func headers(_ task: TransferTask) throws -> String {
        task.headers.isEmpty ? "[]" : try json(task.headers)
    }

    /// The `properties` column.
    static func properties(_ task: TransferTask) throws -> String {
        task.properties.isEmpty ? "{}" : try json(task.properties)
    }

    /// The history as JSON that `JSONDecoder` (`secondsSince1970`) reads back, written by hand:
    /// every write of a task carries its whole history, and `JSONEncoder` was most of the cost
    /// of a write when 1,000 small downloads finish.
    static func history(_ history: [TransferHistoryEntry]) throws -> String {
        var text = "["
        for (index, entry) in history.enumerated() {
            let seconds = entry.at.timeIntervalSince1970
            // Not a JSON number: the encoder refuses it, as it always did.
            guard seconds.isFinite else { return try json(history) }
            if index > 0 { text += "," }
            text += "{\"at\":\(seconds),\"message\":"
            JSONString.append(entry.message, to: &text)
            text += "}"
        }
        return text + "]"
    }

    /// A JSON column read back; a damaged value reads as `fallback` rather than hiding the task.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String?, default fallback: T) -> T {
        guard let text else { return fallback }
        return (try? decoder.decode(type, from: Data(text.utf8))) ?? fallback
    }
}
