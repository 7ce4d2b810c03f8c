import Logging
import MediaFormats

/// A log handler that removes provider secrets from every message and metadata value before
/// handing the entry on: URLs with passwords or tokens are logged by many layers (the HTTP
/// server, clients, importers), and this is the one place all of them pass. `tuner serve` and
/// the CLI install it around their standard-error handler; embedders can wrap their own.
public struct RedactingLogHandler: LogHandler {
    private var wrapped: any LogHandler
    /// The logger's own metadata, as set: redacted whenever it is read or logged. Kept here rather
    /// than in the wrapped handler and merged into each entry as it is logged: code on the request
    /// path sets metadata (a request id) on every request and logs rarely, and a wrapped
    /// `StreamLogHandler` renders its whole metadata again on every change. Redacting when it is
    /// set cost every request a scan for secrets; redacting on the way out costs only log lines.
    private var ownMetadata: Logger.Metadata

    public init(wrapping handler: any LogHandler) {
        var handler = handler
        self.ownMetadata = handler.metadata
        handler.metadata = [:]
        self.wrapped = handler
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { Self.redact(ownMetadata) }
        set { ownMetadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { ownMetadata[key].map(Self.redact) }
        set { ownMetadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(SecretRedactor.redact(event.message.description))"
        let supplied = event.metadata.map { Self.redact($0) }
        if ownMetadata.isEmpty {
            event.metadata = supplied
        } else {
            // The entry's own values win over the logger's, as in swift-log's handlers.
            event.metadata = Self.redact(ownMetadata).merging(supplied ?? [:]) { _, entry in entry }
        }
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
