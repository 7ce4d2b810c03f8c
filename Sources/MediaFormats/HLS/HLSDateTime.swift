import Foundation

/// Reads the ISO 8601 date-times of `#EXT-X-PROGRAM-DATE-TIME` and `#EXT-X-DATERANGE`
/// (`2024-01-12T10:00:00.000Z`, `2018-12-31T09:47:22+08:00`) without a formatter, which is costly
/// to create and not thread-safe on every platform.
enum HLSDateTime {
    /// Nil when the text is not a complete date-time; a missing time zone is read as UTC.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    static func parse(_ p: UnsafeBufferPointer<UInt8>) -> Date? {
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= p.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = p[i] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                i += 1
            }
            return value
        }
        func expect(_ allowed: UInt8...) -> Bool {
            guard i < p.count, allowed.contains(p[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            expect(0x54, 0x74, 0x20), let hour = number(2), expect(0x3A), let minute = number(2),
            expect(0x3A), let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if i < p.count, p[i] == 0x2E || p[i] == 0x2C {
            i += 1
            var scale = 0.1
            let start = i
            while i < p.count, HLSBytes.isDigit(p[i]) {
                fraction += Double(p[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < p.count {
            switch p[i] {
            case 0x5A, 0x7A:  // Z
                i += 1
            case 0x2B, 0x2D:  // + -
                let sign = p[i] == 0x2D ? -1 : 1
                i += 1
                guard let hours = number(2) else { return nil }
                var minutes = 0
                if i < p.count {
                    _ = expect(0x3A)
                    guard let parsed = number(2) else { return nil }
                    minutes = parsed
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard i == p.count else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
