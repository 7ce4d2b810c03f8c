/// SiliconDust's discovery protocol (UDP 65001), as libhdhomerun speaks it: a frame is a 16-bit
/// type, a 16-bit payload length, the payload (tag, length, value items) and a CRC-32 of all of
/// that, little-endian. Numbers are big-endian; an item's length takes one byte below 128 and two
/// above.
public enum HDHomeRunPacket {
    /// Frame types.
    public static let discoverRequest: UInt16 = 0x0002
    public static let discoverReply: UInt16 = 0x0003

    /// Item tags.
    public enum Tag {
        public static let deviceType: UInt8 = 0x01
        public static let deviceID: UInt8 = 0x02
        public static let tunerCount: UInt8 = 0x10
        public static let lineupURL: UInt8 = 0x27
        public static let baseURL: UInt8 = 0x2A
        public static let deviceAuth: UInt8 = 0x2B
    }

    /// Device types: a tuner, and the wildcard a request uses for "any".
    public static let tunerType: UInt32 = 0x0000_0001
    public static let wildcard: UInt32 = 0xFFFF_FFFF

    /// What a discover request asks for.
    public struct Request: Sendable, Hashable {
        public var deviceType: UInt32
        public var deviceID: UInt32

        /// Whether a tuner with `id` should answer.
        public func matches(deviceID id: UInt32) -> Bool {
            (deviceType == wildcard || deviceType == tunerType) && (deviceID == wildcard || deviceID == id)
        }
    }

    /// A device as a reply describes it.
    public struct Device: Sendable, Hashable {
        public var deviceID: UInt32
        public var tunerCount: Int
        public var baseURL: String
        public var lineupURL: String
        public var deviceAuth: String

        public init(deviceID: UInt32, tunerCount: Int, baseURL: String, lineupURL: String, deviceAuth: String) {
            self.deviceID = deviceID
            self.tunerCount = tunerCount
            self.baseURL = baseURL
            self.lineupURL = lineupURL
            self.deviceAuth = deviceAuth
        }
    }

    /// The request in `bytes`, or nil for anything else: a short or long frame, a bad CRC,
    /// another type, a malformed item. Absent items mean the wildcard, as in libhdhomerun.
    public static func parseRequest(_ bytes: [UInt8]) -> Request? {
        guard let (type, items) = openFrame(bytes), type == discoverRequest else { return nil }
        var request = Request(deviceType: wildcard, deviceID: wildcard)
        for (tag, value) in items where value.count == 4 {
            let number = value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if tag == Tag.deviceType { request.deviceType = number }
            if tag == Tag.deviceID { request.deviceID = number }
        }
        return request
    }

    /// The reply describing `device`.
    public static func reply(_ device: Device) -> [UInt8] {
        var payload: [UInt8] = []
        appendItem(Tag.deviceType, bigEndian(tunerType), to: &payload)
        appendItem(Tag.deviceID, bigEndian(device.deviceID), to: &payload)
        appendItem(Tag.tunerCount, [UInt8(clamping: device.tunerCount)], to: &payload)
        appendItem(Tag.deviceAuth, Array(device.deviceAuth.utf8.prefix(200)), to: &payload)
        appendItem(Tag.baseURL, Array(device.baseURL.utf8.prefix(1000)), to: &payload)
        appendItem(Tag.lineupURL, Array(device.lineupURL.utf8.prefix(1000)), to: &payload)
        return frame(type: discoverReply, payload: payload)
    }

    /// A request, as a client sends it (tests, and `tuner` checking its own responder).
    public static func request(deviceType: UInt32 = tunerType, deviceID: UInt32 = wildcard) -> [UInt8] {
        var payload: [UInt8] = []
        appendItem(Tag.deviceType, bigEndian(deviceType), to: &payload)
        appendItem(Tag.deviceID, bigEndian(deviceID), to: &payload)
        return frame(type: discoverRequest, payload: payload)
    }

    /// The items of a reply (tag → value), or nil when `bytes` is not a valid reply.
    public static func parseReply(_ bytes: [UInt8]) -> [UInt8: [UInt8]]? {
        guard let (type, items) = openFrame(bytes), type == discoverReply else { return nil }
        var values: [UInt8: [UInt8]] = [:]
        for item in items where values[item.tag] == nil { values[item.tag] = Array(item.value) }
        return values
    }

    // MARK: Framing

    static func frame(type: UInt16, payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        bytes += payload
        let crc = crc32(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        return bytes
    }

    /// The type and items of a frame whose length and CRC check out.
    static func openFrame(_ bytes: [UInt8]) -> (UInt16, [(tag: UInt8, value: ArraySlice<UInt8>)])? {
        guard bytes.count >= 8, bytes.count <= 1460 else { return nil }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length == bytes.count - 8 else { return nil }
        let end = 4 + length
        let crc =
            UInt32(bytes[end]) | UInt32(bytes[end + 1]) << 8 | UInt32(bytes[end + 2]) << 16 | UInt32(bytes[end + 3])
            << 24
        guard crc == crc32(bytes[..<end]) else { return nil }
        var items: [(tag: UInt8, value: ArraySlice<UInt8>)] = []
        var position = 4
        while position < end {
            let tag = bytes[position]
            position += 1
            guard position < end else { return nil }
            var count = Int(bytes[position])
            position += 1
            if count & 0x80 != 0 {
                guard position < end else { return nil }
                count = (count & 0x7F) | Int(bytes[position]) << 7
                position += 1
            }
            guard count <= end - position else { return nil }
            items.append((tag, bytes[position..<(position + count)]))
            position += count
        }
        return (type, items)
    }

    static func appendItem(_ tag: UInt8, _ value: [UInt8], to payload: inout [UInt8]) {
        payload.append(tag)
        if value.count < 128 {
            payload.append(UInt8(value.count))
        } else {
            payload.append(UInt8(value.count & 0x7F) | 0x80)
            payload.append(UInt8(value.count >> 7))
        }
        payload += value
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (IEEE, reflected), as zlib and libhdhomerun compute it.
    static func crc32(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
