import Foundation

/// An `AsyncSequence` adaptor over ``XMLTVParser``: turns an async sequence of byte chunks
/// (such as a decompressed HTTP body) into guide events, one chunk's worth at a time.
public struct XMLTVEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: ContiguousBytes {
    public typealias Element = XMLTVParser.Event

    let base: Base
    let options: XMLTVParser.Options

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), parser: XMLTVParser(options: options))
    }

    /// Pulls chunks from the base sequence only when the events of the previous one are used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser: XMLTVParser
        var buffered: [XMLTVParser.Event] = []
        var position = 0
        var done = false

        public mutating func next() async throws -> XMLTVParser.Event? {
            while true {
                if position < buffered.count {
                    defer { position += 1 }
                    return buffered[position]
                }
                buffered.removeAll(keepingCapacity: true)
                position = 0
                if done { return nil }
                var events: [XMLTVParser.Event] = []
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

extension XMLTVEventSequence: Sendable where Base: Sendable {}

extension XMLTVParser {
    /// The events of a guide that arrives as an async sequence of byte chunks.
    public static func events<Chunks: AsyncSequence>(
        in chunks: Chunks,
        options: Options = Options()
    ) -> XMLTVEventSequence<Chunks> where Chunks.Element: ContiguousBytes {
        XMLTVEventSequence(base: chunks, options: options)
    }
}
