import Foundation
import NIOCore

/// Splits and folds text into search words the way SQLite's FTS5 tokenizer
/// `unicode61 remove_diacritics 2` does, so that PostgreSQL's full-text search (a `tsvector` of
/// these words, matched with a `tsquery` of them) finds what the SQLite catalog finds.
///
/// Words are runs of letters, numbers and private-use characters; the combining accents that FTS5
/// treats as part of a word (``isFoldedAccent(_:)``) are dropped; letters are case-folded; a Latin
/// letter with accents becomes its ASCII base letter. PostgreSQL's own parser and `unaccent` are not
/// used for the import: the parser keeps `news.bbc.co.uk` or `24/7` as one token, and its case
/// folding depends on the database's locale. Differences left: case pairs added to Unicode after
/// FTS5's tables (Cherokee, Georgian Mtavruli, recent Latin additions), and a few vowel signs of
/// New Tai Lue and Vedic that FTS5 counts as separators.
enum CatalogSearchTokenizer {
    /// The longest word PostgreSQL keeps in a `tsvector` is 2,047 bytes; longer words are left out.
    static let maximumWordBytes = 2047
    /// A `tsvector` position is at most 16,383; later words share it.
    static let maximumPosition = 16383
    /// Words of one item at most: a name of a million words must not make a megabyte vector.
    static let maximumWords = 4096

    /// The words of `text`, folded, in order.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        forEachWord(text) { words.append(String(decoding: $0, as: UTF8.self)) }
        return words
    }

    /// Calls `body` with the UTF-8 of each folded word of `text`, in order.
    static func forEachWord(_ text: String, _ body: ([UInt8]) -> Void) {
        var text = text
        var word: [UInt8] = []
        text.withUTF8 { bytes in
            scan(bytes, word: &word) { word in body(word) }
        }
    }

    /// Splits valid UTF-8 into folded words: `emit` gets each in `word`.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, word: inout [UInt8], emit: (inout [UInt8]) -> Void) {
        word.removeAll(keepingCapacity: true)
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                // The fast path: most names are ASCII.
                switch lead {
                case 0x30...0x39, 0x61...0x7A: word.append(lead)
                case 0x41...0x5A: word.append(lead + 0x20)
                default:
                    if !word.isEmpty {
                        emit(&word)
                        word.removeAll(keepingCapacity: true)
                    }
                }
                index += 1
                continue
            }
            let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            guard index + length <= count else { break }
            var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | (UInt32(bytes[index + offset]) & 0x3F) }
            index += length
            if isFoldedAccent(value) { continue }
            guard let scalar = Unicode.Scalar(value), isWordScalar(scalar) else {
                if !word.isEmpty {
                    emit(&word)
                    word.removeAll(keepingCapacity: true)
                }
                continue
            }
            appendFolded(scalar, to: &word)
        }
        if !word.isEmpty {
            emit(&word)
            word.removeAll(keepingCapacity: true)
        }
    }

    /// Letters (L*), numbers (N*) and private use (Co): FTS5's default token characters.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }

    /// The combining accents FTS5 counts as part of a word and then removes (U+0300–U+0331, less
    /// a few): "e\u{301}" is the word "e", not "e" and a separator.
    static func isFoldedAccent(_ value: UInt32) -> Bool {
        switch value {
        case 0x300...0x304, 0x306...0x30C, 0x30F, 0x311, 0x31B, 0x323...0x328, 0x32D, 0x32E, 0x330, 0x331: true
        default: false
        }
    }

    /// Folds that are not lower-casing: the symbol and final forms FTS5 folds to a letter.
    private static let extraFolds: [UInt32: UInt32] = [
        0xB5: 0x3BC, 0x17F: 0x73, 0x345: 0x3B9, 0x3C2: 0x3C3, 0x3D0: 0x3B2, 0x3D1: 0x3B8, 0x3D5: 0x3C6,
        0x3D6: 0x3C0, 0x3F0: 0x3BA, 0x3F1: 0x3C1, 0x3F5: 0x3B5, 0x1E9B: 0x1E61, 0x1FBE: 0x3B9,
    ]

    /// Appends `scalar` case-folded, and without its accents when it is a Latin letter.
    private static func appendFolded(_ scalar: Unicode.Scalar, to word: inout [UInt8]) {
        let value = scalar.value
        // FTS5 folds the Basic Multilingual Plane and Deseret only.
        guard value < 0x10000 || (0x10400..<0x10428).contains(value) else {
            append(scalar, to: &word)
            return
        }
        var lower: [Unicode.Scalar]
        if let folded = extraFolds[value].flatMap(Unicode.Scalar.init) {
            lower = [folded]
        } else if scalar.properties.changesWhenLowercased {
            lower = Array(scalar.properties.lowercaseMapping.unicodeScalars)
        } else {
            lower = [scalar]
        }
        for scalar in lower where !isFoldedAccent(scalar.value) {
            append(baseLetter(scalar) ?? scalar, to: &word)
        }
    }

    /// The ASCII letter of a Latin letter with accents (é → e, ǖ → u), if `scalar` is one.
    private static func baseLetter(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        guard scalar.value >= 0xC0, scalar.value < 0x2000 else { return nil }
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        guard let base = decomposed.first, base.isASCII, base.properties.isAlphabetic, decomposed.count > 1,
            decomposed.dropFirst().allSatisfy({ isFoldedAccent($0.value) })
        else { return nil }
        return base
    }

    private static func append(_ scalar: Unicode.Scalar, to word: inout [UInt8]) {
        UTF8.encode(scalar) { word.append($0) }
    }

    // MARK: - PostgreSQL text

    /// Writes the `tsvector` of an item in PostgreSQL's input syntax, reusing its buffers: the
    /// name's words with weight A from position 1, the group's with weight B after a gap of one (a
    /// phrase never spans the two, as in FTS5's columns).
    struct VectorWriter {
        private var word: [UInt8] = []
        private var position = 0
        private var count = 0

        /// Appends the literal to `buffer`; returns how many words there are (bm25's document
        /// length, which counts words too long to be kept too).
        mutating func write(
            name: UnsafeBufferPointer<UInt8>?, group: UnsafeBufferPointer<UInt8>?, into buffer: inout ByteBuffer
        ) -> Int {
            position = 0
            count = 0
            if let name { add(name, weight: UInt8(ascii: "A"), into: &buffer) }
            position += 1
            if let group { add(group, weight: UInt8(ascii: "B"), into: &buffer) }
            return count
        }

        private mutating func add(_ text: UnsafeBufferPointer<UInt8>, weight: UInt8, into buffer: inout ByteBuffer) {
            var position = position
            var count = count
            CatalogSearchTokenizer.scan(text, word: &word) { word in
                position += 1
                count += 1
                guard word.count <= maximumWordBytes, count <= maximumWords else { return }
                if count > 1 { buffer.writeInteger(UInt8(ascii: " ")) }
                // Words hold letters and numbers only: no quote or backslash to escape.
                buffer.writeInteger(UInt8(ascii: "'"))
                buffer.writeBytes(word)
                buffer.writeStaticString("':")
                buffer.writeString(String(min(position, maximumPosition)))
                buffer.writeInteger(weight)
            }
            self.position = position
            self.count = count
        }
    }

    /// The `tsvector` literal of an item as a String, and its number of words.
    static func vector(name: String, group: String?) -> (literal: String, length: Int) {
        var writer = VectorWriter()
        var buffer = ByteBuffer()
        var name = name
        let length = name.withUTF8 { name in
            guard var group else { return writer.write(name: name, group: nil, into: &buffer) }
            return group.withUTF8 { group in writer.write(name: name, group: group, into: &buffer) }
        }
        return (buffer.readString(length: buffer.readableBytes) ?? "", length)
    }

    /// A `tsquery` for what a person typed: every word (split as ``FTSQuery`` splits it) must match
    /// as a prefix, in any order; a typed word that folds into several (`नमस्ते`, `l'été`) is a phrase
    /// whose last word is a prefix, as FTS5 reads `"l'été"*`. With `weights`, only words of those
    /// columns count (`A`: names). `nil` when there is nothing to search for.
    static func query(_ text: String, weights: String = "") -> String? {
        var terms: [String] = []
        for typed in FTSQuery.typedWords(text) {
            var words: [[UInt8]] = []
            forEachWord(typed) { words.append($0) }
            guard !words.isEmpty else { continue }
            var term: [UInt8] = []
            for (index, word) in words.enumerated() {
                if index > 0 { term.append(contentsOf: " <-> ".utf8) }
                appendQuoted(word, to: &term)
                if index == words.count - 1 {
                    term.append(contentsOf: ":*".utf8)
                    term.append(contentsOf: weights.utf8)
                } else if !weights.isEmpty {
                    term.append(UInt8(ascii: ":"))
                    term.append(contentsOf: weights.utf8)
                }
            }
            terms.append(
                words.count > 1
                    ? "(" + String(decoding: term, as: UTF8.self) + ")" : String(decoding: term, as: UTF8.self))
        }
        return terms.isEmpty ? nil : terms.joined(separator: " & ")
    }

    /// `'word'` with quotes and backslashes escaped, as tsvector and tsquery input wants it.
    private static func appendQuoted(_ word: [UInt8], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "'"))
        for byte in word {
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\\") { output.append(byte) }
            output.append(byte)
        }
        output.append(UInt8(ascii: "'"))
    }
}
