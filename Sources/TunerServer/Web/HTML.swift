import MediaFormats

/// A piece of HTML. Text interpolated into it is escaped unless it is `HTML` itself, so a value
/// from the catalog (a channel called `<script>…`) can only ever render as text.
struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var text: String

    init(unsafe text: String) {
        self.text = text
    }

    init(stringLiteral value: String) {
        text = value
    }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    var description: String { text }

    /// Pieces joined one after the other.
    init(joining pieces: some Sequence<HTML>) {
        text = pieces.map(\.text).joined()
    }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Text: escaped, in element content and in quoted attribute values alike.
        mutating func appendInterpolation(_ value: String) {
            text += HTML.escape(value)
        }

        mutating func appendInterpolation(_ value: String?) {
            text += HTML.escape(value ?? "")
        }

        mutating func appendInterpolation<Number: BinaryInteger>(_ value: Number) {
            text += String(value)
        }

        mutating func appendInterpolation(_ html: HTML) {
            text += html.text
        }

        mutating func appendInterpolation(_ pieces: [HTML]) {
            for piece in pieces { text += piece.text }
        }
    }

    /// `&`, `<`, `>`, `"` and `'` as character references: safe inside elements and quoted attributes.
    /// Control and line-separator characters from providers become spaces first, by the rule every
    /// output follows (``OutputText/line(_:)``): HTML 5 calls C0/C1 in text a parse error.
    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in OutputText.line(value).unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
