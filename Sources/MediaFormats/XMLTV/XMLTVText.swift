/// A piece of guide text (title, description, category, display name…) with its language.
public struct XMLTVText: Sendable, Hashable {
    /// The text, with entities decoded and surrounding whitespace trimmed.
    public var value: String
    /// The `lang` attribute; `nil` when absent (an empty attribute is kept as `""`).
    public var lang: String?

    public init(_ value: String, lang: String? = nil) {
        self.value = value
        self.lang = lang
    }
}

extension Array where Element == XMLTVText {
    /// The text to show for a reader of `languages` (in order of preference, matched on the
    /// primary subtag so `en` matches `en_NZ` and `en-GB`), else the first one.
    public func xmltvBest(for languages: [String] = []) -> String? {
        for language in languages {
            let wanted = XMLTVText.primarySubtag(language)
            if let match = first(where: { $0.lang.map(XMLTVText.primarySubtag) == wanted }) {
                return match.value
            }
        }
        return first?.value
    }
}

extension XMLTVText {
    static func primarySubtag(_ language: String) -> Substring {
        language.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? ""
    }
}
