import Foundation

/// An `AsyncSequence` adaptor over ``M3UParser``: turns an async sequence of byte chunks (such as
/// an HTTP response body) into playlist events without holding more than one chunk's worth.
public struct M3UEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: ContiguousBytes {
    public typealias Element = M3UParser.Event

    let base: Base
    let options: M3UParser.Options

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), parser: M3UParser(options: options))
    }

    /// Pulls chunks from the base sequence only when the events of the previous one are used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser: M3UParser
        var buffered: [M3UParser.Event] = []
        var position = 0
        var done = false

        public mutating func next() async throws -> M3UParser.Event? {
            while true {
                if position < buffered.count {
                    defer { position += 1 }
                    return buffered[position]
                }
                buffered.removeAll(keepingCapacity: true)
                position = 0
                if done { return nil }
                var events: [M3UParser.Event] = []
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

extension M3UEventSequence: Sendable where Base: Sendable {}

extension M3UParser {
    /// The events of a playlist that arrives as an async sequence of byte chunks.
    public static func events<Chunks: AsyncSequence>(
        in chunks: Chunks,
        options: Options = Options()
    ) -> M3UEventSequence<Chunks> where Chunks.Element: ContiguousBytes {
        M3UEventSequence(base: chunks, options: options)
    }
}
