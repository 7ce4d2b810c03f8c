import Foundation
import Hummingbird
import NIOCore

/// The request context of Tuner's routes: JSON with ISO 8601 dates both ways.
public struct TunerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection, so streaming bodies can wait for its event loop to catch up.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    public var requestDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
