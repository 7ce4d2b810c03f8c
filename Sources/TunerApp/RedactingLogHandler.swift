import Logging
import MediaFormats

/// A log handler that removes provider secrets from every message and metadata value before
/// handing the entry on: URLs with passwords or tokens are logged by many layers (the HTTP
/// server, clients, importers), and this is the one place all of them pass. `tuner serve` and
/// the CLI install it around their standard-error handler; embedders can wrap their own.
public struct RedactingLogHandler: LogHandler {
    private var wrapped: any LogHandler

    public init(wrapping handler: any LogHandler) {
        self.wrapped = handler
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = Self.redact(newValue) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(Self.redact) }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(SecretRedactor.redact(event.message.description))"
        event.metadata = event.metadata.map { Self.redact($0) }
        if let error = event.error { event.error = RedactedError(description: SecretRedactor.redact("\(error)")) }
        wrapped.log(event: event)
    }

    static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.mapValues(redact)
    }

    static func redact(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(SecretRedactor.redact(text))
        case .stringConvertible(let convertible): return .string(SecretRedactor.redact(convertible.description))
        case .array(let values): return .array(values.map(redact))
        case .dictionary(let values): return .dictionary(values.mapValues(redact))
        }
    }
}

/// An error's description with its secrets removed, standing in for the error in a log entry.
struct RedactedError: Error, CustomStringConvertible {
    let description: String
}
