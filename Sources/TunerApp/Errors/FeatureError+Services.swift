import LiveTV
import Streaming

/// The one place where the service modules' errors become TunerApp's: each kind keeps the answer
/// it had when the stream and live engines lived in TunerApp (the same status, the same message).
extension FeatureError {
    public init(_ error: StreamError) {
        switch error.kind {
        case .invalid: self.init(.invalid, error.description)
        case .forbidden: self.init(.forbidden, error.description)
        case .upstream: self.init(.upstream, error.description)
        }
    }

    public init(_ error: LiveError) {
        switch error.kind {
        case .notFound: self.init(.notFound, error.description)
        case .notPlayable: self.init(.notPlayable, error.description)
        case .invalid: self.init(.invalid, error.description)
        case .failed: self.init(.failed, error.description)
        case .busy: self.init(.busy, error.description)
        }
    }
}

extension FeatureError {
    /// Runs `body`, its stream error as TunerApp's.
    static func streaming<T>(_ body: () throws(StreamError) -> T) throws(FeatureError) -> T {
        do { return try body() } catch { throw FeatureError(error) }
    }

    /// Runs `body`, its live error as TunerApp's.
    static func live<T>(_ body: () async throws(LiveError) -> T) async throws(FeatureError) -> T {
        do { return try await body() } catch { throw FeatureError(error) }
    }
}
