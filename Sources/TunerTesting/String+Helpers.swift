extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    func removingPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}

extension StringProtocol {
    /// Trims spaces and tabs only: the whitespace HTTP allows around header values (RFC 9110 §5.5).
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" {
            text.removeFirst()
        }
        while text.last == " " || text.last == "\t" {
            text.removeLast()
        }
        return String(text)
    }
}
