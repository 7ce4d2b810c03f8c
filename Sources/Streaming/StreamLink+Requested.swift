import Foundation
import MediaFormats

extension StreamLink {
    /// The link a client asked for with a URL's text and a header map: a valid link to a URL the
    /// fetch policy lets the server reach. The API's proxy URLs and preloads both start here.
    public static func requested(
        url text: String, headers: [String: String]?, fetchPolicy: FetchPolicy
    ) throws(StreamError) -> StreamLink {
        guard let url = URL(string: text) else { throw StreamError(.invalid, "'\(text)' is not a URL") }
        let link = StreamLink(url: url, headers: StreamHeader.list(headers ?? [:]))
        try link.validate()
        // A link to somewhere the server may not fetch from would only fail later.
        guard fetchPolicy.permits(url) else { throw StreamError(.forbidden, fetchPolicy.refusal(text)) }
        return link
    }
}

extension StreamHeader {
    /// A header map as a list in name order, so the same headers always give the same proxy URL.
    public static func list(_ headers: [String: String]) -> [StreamHeader] {
        headers.sorted { $0.key < $1.key }.map { StreamHeader(name: $0.key, value: $0.value) }
    }
}
