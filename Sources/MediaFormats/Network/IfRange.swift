/// The `If-Range` request header (RFC 9110 §13.1.5).
public enum IfRange {
    /// The validator a resumed request may send: the ETag when it is strong (a weak one never
    /// matches `If-Range`), else Last-Modified; nil when there is neither.
    public static func validator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
