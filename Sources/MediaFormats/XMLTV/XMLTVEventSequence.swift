import Foundation

/// Guide events from an async sequence of byte chunks (see ``ParserEventSequence``).
public typealias XMLTVEventSequence<Base: AsyncSequence> = ParserEventSequence<XMLTVParser, Base>
where Base.Element: ContiguousBytes

extension XMLTVParser: ChunkedEventParser {
    /// The events of a guide that arrives as an async sequence of byte chunks.
    public static func events<Chunks: AsyncSequence>(in chunks: Chunks) -> XMLTVEventSequence<Chunks>
    where Chunks.Element: ContiguousBytes {
        events(in: chunks, options: Options())
    }
}
