import Foundation

/// Where the sign-in page sends the browser afterwards (`/login?next=`): only a path on this
/// server. A value passes when it is printable ASCII and, as it is and after each of up to three
/// rounds of percent-decoding, starts with a single `/`, holds no `//`, no backslash, and no
/// control character (`%09`, `%5C`, `%2F%2F` are caught decoded); anything else is `/`.
/// Browsers drop tabs and newlines from URLs and read `\` as `/`, so `/%09/host` would otherwise
/// become `//host`: another site.
enum SignInNext {
    static func safe(_ value: String?) -> String {
        guard let value, !value.isEmpty, value.utf8.count <= 2_048,
            value.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { return "/" }
        var form = value
        for _ in 0...3 {
            guard isLocalPath(form) else { return "/" }
            guard let decoded = form.removingPercentEncoding else { return "/" }
            if decoded == form { return value }
            form = decoded
        }
        // Still encoded after three rounds: no honest path looks like that.
        return "/"
    }

    static func isLocalPath(_ text: String) -> Bool {
        text.hasPrefix("/") && !text.contains("//") && !text.contains("\\")
            && !text.unicodeScalars.contains { scalar in
                scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029
            }
    }
}
