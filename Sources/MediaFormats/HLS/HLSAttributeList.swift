/// An ordered attribute list (`NAME=value,NAME="value"`), the value of most HLS tags.
///
/// Order is kept as written; look-ups by name return the first match.
public struct HLSAttributeList: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    /// One `NAME=value` pair.
    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: HLSAttributeValue

        public init(name: String, value: HLSAttributeValue) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var attributes: [Attribute]

    public init(_ attributes: [Attribute] = []) {
        self.attributes = attributes
    }

    /// Reads an attribute list written as in a playlist (the text after a tag's `:`).
    /// Variable references are left as written.
    public init(parsing text: String) throws(HLSParseError) {
        var text = text
        let result: (list: [Attribute], problem: String?) = text.withUTF8 { p in
            var raw: [HLSRawAttribute] = []
            let problem = HLSAttributeScanner.scan(p, 0, p.count, into: &raw)
            let list = raw.map { attribute in
                Attribute(
                    name: HLSBytes.string(p, attribute.nameStart, attribute.nameEnd),
                    value: HLSAttributeValue(
                        text: HLSBytes.string(p, attribute.valueStart, attribute.valueEnd), isQuoted: attribute.isQuoted
                    ))
            }
            return (list, problem)
        }
        if let problem = result.problem {
            throw HLSParseError(.invalidAttributeList, line: 1, problem)
        }
        self.attributes = result.list
    }

    public var startIndex: Int { attributes.startIndex }
    public var endIndex: Int { attributes.endIndex }
    public subscript(position: Int) -> Attribute { attributes[position] }

    /// The value of the first attribute called `name`; setting replaces it in place, or appends
    /// when absent; setting nil removes every attribute of that name.
    public subscript(name: String) -> HLSAttributeValue? {
        get { attributes.first { $0.name == name }?.value }
        set {
            if let newValue {
                if let index = attributes.firstIndex(where: { $0.name == name }) {
                    attributes[index].value = newValue
                } else {
                    attributes.append(Attribute(name: name, value: newValue))
                }
            } else {
                attributes.removeAll { $0.name == name }
            }
        }
    }

    /// The list as written in a playlist.
    public var description: String {
        attributes.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
    }
}
