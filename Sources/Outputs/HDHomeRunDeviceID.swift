/// HDHomeRun device ids: eight hex digits whose nibbles pass libhdhomerun's checksum
/// (`hdhomerun_discover_validate_device_id`); clients drop devices whose id fails it.
public enum HDHomeRunDeviceID {
    /// libhdhomerun's table for the high nibble of each byte.
    static let table: [UInt32] = [0xA, 0x5, 0xF, 0x6, 0x7, 0xC, 0x1, 0xB, 0x9, 0x2, 0x8, 0xD, 0x4, 0x3, 0xE, 0x0]

    /// Whether `id` passes the checksum.
    public static func isValid(_ id: UInt32) -> Bool { checksum(id) == 0 }

    /// A random valid id, in the range real tuners use (first digit 1).
    public static func random() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        let high = 0x1000_0000 | (UInt32.random(in: 0...UInt32.max, using: &generator) & 0x0FFF_FFF0)
        // The lowest nibble enters the checksum as itself: choose it to cancel the rest.
        return high | checksum(high)
    }

    /// The hex form players show: eight uppercase digits.
    public static func text(_ id: UInt32) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    static func checksum(_ id: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        for byte in stride(from: 28, through: 4, by: -8) {
            sum ^= table[Int((id >> UInt32(byte)) & 0xF)]
            sum ^= (id >> UInt32(byte - 4)) & 0xF
        }
        return sum
    }
}
