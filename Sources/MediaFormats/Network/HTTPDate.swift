/// Formats IMF-fixdate strings (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) without
/// Foundation's formatters, whose locale and time-zone defaults differ between platforms (and
/// which cost far more than this). ``HTTPDateParser`` reads them back.
public enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func string(secondsSince1970 seconds: Int) -> String {
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        // 1970-01-01 was a Thursday.
        let weekday = weekdays[floorDivision(days + 4, 7).remainder]
        // Days to civil date: Howard Hinnant's `civil_from_days`.
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        func two(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }
}
