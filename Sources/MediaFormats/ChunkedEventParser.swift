import Foundation

/// A streaming parser that is fed byte chunks and reports what it reads as events, so input of
/// any size is parsed in constant memory. `M3UParser` and `XMLTVParser` are the two.
public protocol ChunkedEventParser: Sendable {
    associatedtype Event: Sendable
    associatedtype Options: Sendable

    init(options: Options)
    /// Parses one more chunk; events complete in it are reported in order.
    mutating func feed(_ chunk: some ContiguousBytes, onEvent: (Event) throws -> Void) rethrows
    /// Ends the input; what was still pending is reported.
    mutating func finish(onEvent: (Event) throws -> Void) rethrows
}

extension ChunkedEventParser {
    /// The events of input that arrives as an async sequence of byte chunks (such as an HTTP body).
    public static func events<Chunks: AsyncSequence>(
        in chunks: Chunks, options: Options
    ) -> ParserEventSequence<Self, Chunks> where Chunks.Element: ContiguousBytes {
        ParserEventSequence(base: chunks, options: options)
    }
}

/// An `AsyncSequence` adaptor over a ``ChunkedEventParser``: turns an async sequence of byte
/// chunks into the parser's events without holding more than one chunk's worth.
public struct ParserEventSequence<Parser: ChunkedEventParser, Base: AsyncSequence>: AsyncSequence
where Base.Element: ContiguousBytes {
    public typealias Element = Parser.Event

    let base: Base
    let options: Parser.Options

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), parser: Parser(options: options))
    }

    /// Pulls chunks from the base sequence only when the events of the previous one are used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser: Parser
        var buffered: [Parser.Event] = []
        var position = 0
        var done = false

        public mutating func next() async throws -> Parser.Event? {
            while true {
                if position < buffered.count {
                    defer { position += 1 }
                    return buffered[position]
                }
                buffered.removeAll(keepingCapacity: true)
                position = 0
                if done { return nil }
                var events: [Parser.Event] = []
                swap(&events, &buffered)
                if let chunk = try await base.next() {
                    parser.feed(chunk) { events.append($0) }
                } else {
                    parser.finish { events.append($0) }
                    done = true
                }
                swap(&events, &buffered)
            }
        }
    }
}

extension ParserEventSequence: Sendable where Base: Sendable {}
