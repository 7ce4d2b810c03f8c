/// Builds FTS5 match expressions from what a person typed.
enum FTSQuery {
    /// Every word as a quoted prefix term, all required: `bbc on` → `"bbc"* "on"*`. Quoting makes
    /// FTS5 syntax in the input (`AND`, `-`, `:`, `"`) plain text instead of an error or an injection.
    /// `nil` when the text has no word to search for.
    static func prefixMatch(_ text: String) -> String? {
        let terms = typedWords(text).map { "\"" + $0 + "\"*" }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// The words of what a person typed, as typed: runs of letters, digits and marks (the same
    /// split as the unicode61 tokenizer's; a word it splits further is searched as a phrase).
    static func typedWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
                || properties.generalCategory == .spacingMark
            {
                current.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        return words
    }
}
