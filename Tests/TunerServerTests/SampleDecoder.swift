import Foundation

/// Makes a sample of any `Decodable` type with every field present: each optional is there, each
/// array has one element, each number is 1 and each string "x" (an enum that is `CaseIterable`
/// takes its first case). Encoded, a sample shows every key the type can answer with, which
/// `OpenAPISchemaTests` compares with the document's schemas.
struct SampleDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    /// Every string of the sample.
    var text = "x"
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func sample<T: Decodable>(_ type: T.Type) throws -> T {
        try SampleDecoder().value(type)
    }

    func value<T: Decodable>(_ type: T.Type) throws -> T {
        if type == Date.self { return Date(timeIntervalSince1970: 1_700_000_000) as! T }
        if type == URL.self { return URL(string: "http://example.com/x")! as! T }
        if type == Data.self { return Data([1]) as! T }
        if type == Decimal.self { return Decimal(1) as! T }
        if let cases = type as? any CaseIterable.Type, let first = Self.firstCase(cases) as? T { return first }
        do {
            return try T(from: self)
        } catch let error as DecodingError {
            // An enum that is not `CaseIterable` takes one of these raw values.
            for text in Self.rawValues {
                if let value = try? T(from: SampleDecoder(text: text)) { return value }
            }
            throw error
        }
    }

    /// Raw values of the answers' enums that are not `CaseIterable` (`TransferErrorClass`).
    static let rawValues = ["transient"]

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { type.allCases.first }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(decoder: self) }

    func singleValueContainer() -> any SingleValueDecodingContainer { Single(decoder: self) }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: SampleDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.value(type) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
            -> KeyedDecodingContainer<NestedKey>
        { decoder.container(keyedBy: type) }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer { decoder.unkeyedContainer() }
        func superDecoder() -> any Decoder { decoder }
        func superDecoder(forKey key: Key) -> any Decoder { decoder }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: SampleDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex >= 1 }
        init(decoder: SampleDecoder) { self.decoder = decoder }
        mutating func decodeNil() -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try decoder.value(type)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type)
            -> KeyedDecodingContainer<NestedKey>
        {
            currentIndex += 1
            return decoder.container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return decoder.unkeyedContainer()
        }
        mutating func superDecoder() -> any Decoder { decoder }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: SampleDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { false }
        func decode(_ type: Bool.Type) -> Bool { true }
        func decode(_ type: String.Type) -> String { decoder.text }
        func decode(_ type: Double.Type) -> Double { 1 }
        func decode(_ type: Float.Type) -> Float { 1 }
        func decode(_ type: Int.Type) -> Int { 1 }
        func decode(_ type: Int8.Type) -> Int8 { 1 }
        func decode(_ type: Int16.Type) -> Int16 { 1 }
        func decode(_ type: Int32.Type) -> Int32 { 1 }
        func decode(_ type: Int64.Type) -> Int64 { 1 }
        func decode(_ type: UInt.Type) -> UInt { 1 }
        func decode(_ type: UInt8.Type) -> UInt8 { 1 }
        func decode(_ type: UInt16.Type) -> UInt16 { 1 }
        func decode(_ type: UInt32.Type) -> UInt32 { 1 }
        func decode(_ type: UInt64.Type) -> UInt64 { 1 }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.value(type) }
    }
}
