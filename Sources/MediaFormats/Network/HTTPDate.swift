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
        let (year, month, day) = XMLTVDate.civil(fromDays: Int64(days))
        func two(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }
}
