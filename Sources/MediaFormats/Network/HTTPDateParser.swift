import Foundation

/// Reads the three HTTP date formats of RFC 9110 §5.6.7 (`Retry-After`, `Last-Modified`…) by
/// hand, in ASCII, with every number range-checked. Foundation's `DateFormatter` traps on some
/// malformed non-ASCII input (found by the `range` fuzz target), and these strings come from
/// strangers' servers.
public enum HTTPDateParser {
    /// The moment `text` names, or nil when it is not an IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), an RFC 850 date (`Sunday, 06-Nov-94 08:49:37 GMT`) or an
    /// asctime date (`Sun Nov  6 08:49:37 1994`).
    public static func parse(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 64, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let tokens = String(decoding: bytes, as: UTF8.self).split(separator: " ").map(String.init)
        switch tokens.count {
        case 6 where tokens[0].hasSuffix(",") && tokens[5] == "GMT":
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            return date(day: tokens[1], month: tokens[2], year: tokens[3], time: tokens[4], twoDigitYear: false)
        case 4 where tokens[0].hasSuffix(",") && tokens[3] == "GMT":
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { return nil }
            return date(day: parts[0], month: parts[1], year: parts[2], time: tokens[2], twoDigitYear: true)
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994 (the double space splits away)
            return date(day: tokens[2], month: tokens[1], year: tokens[4], time: tokens[3], twoDigitYear: false)
        default:
            return nil
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Digits only (no sign), at most `maxDigits` of them.
    private static func number(_ text: String, maxDigits: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int(text)
    }

    private static func date(day: String, month: String, year: String, time: String, twoDigitYear: Bool) -> Date? {
        guard let day = number(day, maxDigits: 2), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: month),
            var year = number(year, maxDigits: twoDigitYear ? 2 : 4)
        else { return nil }
        if twoDigitYear {
            year += year < 70 ? 2000 : 1900
        } else if year < 1000 {
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard clock.count == 3,
            let hour = number(clock[0], maxDigits: 2), hour < 24,
            let minute = number(clock[1], maxDigits: 2), minute < 60,
            let second = number(clock[2], maxDigits: 2), second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm); the
    /// inputs are range-checked above, so nothing here can overflow.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
