import Foundation

/// An XMLTV time: `YYYYMMDDhhmmss ±zzzz`, with shorter forms (`YYYYMMDDhhmm`, `YYYYMMDD`, …) and
/// a missing zone meaning UTC, as the XMLTV DTD says.
///
/// Kept as seconds since 1970 plus the offset the guide wrote, so a guide can be re-emitted in
/// its own time zone; read with a hand-written parser because `DateFormatter` is far too slow
/// for millions of programmes.
public struct XMLTVDate: Sendable, Hashable, CustomStringConvertible {
    /// The instant, in seconds since 1970-01-01 00:00:00 UTC.
    public var secondsSince1970: Int64
    /// The zone offset the guide wrote, in seconds east of UTC.
    public var utcOffset: Int

    public init(secondsSince1970: Int64, utcOffset: Int = 0) {
        self.secondsSince1970 = secondsSince1970
        self.utcOffset = utcOffset
    }

    /// Reads an XMLTV time; `nil` when it is not one.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ XMLTVDate(bytes: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = parsed
    }

    /// The instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    /// The XMLTV spelling, in the guide's own offset: `20151126060000 +0000`. Written in place:
    /// guides write two per programme, hundreds of thousands per document.
    public var description: String {
        let local = secondsSince1970 + Int64(utcOffset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        let secondsOfDay = Int(local - days * 86_400)
        let offsetMinutes = abs(utcOffset) / 60
        guard (0...9999).contains(year), offsetMinutes / 60 <= 99 else {
            // Outside what four and two digits hold: padded, never cut.
            func pad(_ value: Int, _ width: Int) -> String {
                let digits = String(value)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            return pad(year, 4) + pad(month, 2) + pad(day, 2)
                + pad(secondsOfDay / 3600, 2) + pad(secondsOfDay / 60 % 60, 2) + pad(secondsOfDay % 60, 2)
                + " " + (utcOffset < 0 ? "-" : "+") + pad(offsetMinutes / 60, 2) + pad(offsetMinutes % 60, 2)
        }
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = max(value, 0)
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 4)
            put(day, 2, at: 6)
            put(secondsOfDay / 3600, 2, at: 8)
            put(secondsOfDay / 60 % 60, 2, at: 10)
            put(secondsOfDay % 60, 2, at: 12)
            buffer[14] = UInt8(ascii: " ")
            buffer[15] = utcOffset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            put(offsetMinutes / 60, 2, at: 16)
            put(offsetMinutes % 60, 2, at: 18)
            return 20
        }
    }

    init?(bytes: UnsafeRawBufferPointer) {
        var index = 0
        let count = bytes.count
        while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        /// Reads `width` digits at `index`, or nothing when they are not all there.
        func number(_ width: Int) -> Int? {
            guard index + width <= count else { return nil }
            var value = 0
            for offset in 0..<width {
                let digit = bytes[index + offset] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += width
            return value
        }
        // Each shorter form simply stops early; later fields keep their defaults.
        guard let year = number(4) else { return nil }
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        if let value = number(2) {
            month = value
            if let value = number(2) {
                day = value
                if let value = number(2) {
                    hour = value
                    if let value = number(2) {
                        minute = value
                        if let value = number(2) { second = value }
                    }
                }
            }
        }
        // A wrong number of digits (such as 13) means garbage rather than a shorter form.
        if index < count, bytes[index] &- 0x30 < 10 { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59, second <= 60 else {
            return nil
        }

        while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        var offset = 0
        if index < count {
            let sign = bytes[index]
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                index += 1
                // +hhmm, +hh:mm or +hh.
                guard let hours = number(2) else { return nil }
                if index < count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                let minutes = number(2) ?? 0
                guard hours <= 18, minutes <= 59 else { return nil }
                offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else {
                // Zone names: only the UTC spellings are unambiguous; others are read as UTC too,
                // which is what the DTD prescribes for a missing zone.
                let letter = sign | 0x20
                guard letter &- 0x61 < 26 else { return nil }
            }
        }
        let days = Self.days(fromCivilYear: year, month: month, day: day)
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.init(secondsSince1970: local - Int64(offset), utcOffset: offset)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromCivilYear year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
