/// The errors of an import that went past its bounds, worded the same wherever the bound is
/// checked (a download, a local file being parsed, a gzip inflating, an Xtream answer), and
/// naming the setting that raises the bound, since a genuinely large catalog is not an attack.
enum ImportLimits {
    /// `what` (a redacted URL or a path) is larger than the import size limit.
    static func tooLarge(_ what: String, limit: Int64) -> CatalogError {
        CatalogError.fetchFailed(
            "\(what) is larger than --import-max-size (\(bytes(limit))); raise it if it is genuine")
    }

    /// Reading `what` went on past the import time limit.
    static func tooSlow(_ what: String) -> CatalogError {
        CatalogError.fetchFailed("reading \(what) took longer than --import-timeout; raise it if it is genuine")
    }

    /// A provider's API answer is larger than its limit.
    static func answerTooLarge(_ what: String, limit: Int64) -> CatalogError {
        CatalogError.fetchFailed(
            "the answer to \(what) is larger than --provider-answer-max-size (\(bytes(limit))); "
                + "raise it if it is genuine")
    }

    /// `2147483648` → `2 GiB`; sizes that are no whole unit stay in bytes.
    static func bytes(_ count: Int64) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where count > 0 && count % (1 << shift) == 0 {
            return "\(count >> shift) \(unit)"
        }
        return "\(count) bytes"
    }
}
