/// Byte counts and offsets in headers from servers (Content-Length, Content-Range, Upload-Offset,
/// Upload-Length, Tus-Max-Size).
///
/// `Int64(_:)` also takes `+5` and `-5`; a server's byte count must be neither, so a hostile or
/// broken answer cannot make a length negative (and every later sum or comparison wrong).
public enum HeaderNumber {
    /// ASCII digits only (surrounding blanks allowed), within `Int64`; else nil.
    public static func nonNegative(_ text: some StringProtocol) -> Int64? {
        var digits = Substring(text)
        while digits.first == " " || digits.first == "\t" { digits.removeFirst() }
        while digits.last == " " || digits.last == "\t" { digits.removeLast() }
        guard !digits.isEmpty, digits.utf8.count <= 19, digits.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
        return Int64(digits)
    }
}
