import Foundation

/// Playlist events from an async sequence of byte chunks (see ``ParserEventSequence``).
public typealias M3UEventSequence<Base: AsyncSequence> = ParserEventSequence<M3UParser, Base>
where Base.Element: ContiguousBytes

extension M3UParser: ChunkedEventParser {
    /// The events of a playlist that arrives as an async sequence of byte chunks.
    public static func events<Chunks: AsyncSequence>(in chunks: Chunks) -> M3UEventSequence<Chunks>
    where Chunks.Element: ContiguousBytes {
        events(in: chunks, options: Options())
    }
}
