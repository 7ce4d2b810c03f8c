import AsyncHTTPClient
import NIOCore

/// Reads an Xtream panel's `player_api.php` answer, capped.
///
/// The answer is decoded as one JSON document, so it is held in memory whole; the cap
/// (``CatalogImporter/Configuration/maxProviderAnswerBytes``, 256 MiB by default) keeps a panel
/// from making Tuner hold up to the 2 GiB download limit (the RSS went from 70 to 597 MB on a
/// 256 MiB answer before). Bytes are checked as they arrive, so an endless answer stops at the cap,
/// and a dripping one at the import's time limit (``ImportDeadline``).
enum XtreamAnswer {
    static func collect(
        _ body: HTTPClientResponse.Body, limit: Int64, timeout: TimeAmount, what: String
    ) async throws -> ByteBuffer {
        try await ImportDeadline.run(within: timeout, what: "the answer to \(what) from the Xtream panel") {
            try await collect(body, limit: limit, what: what)
        }
    }

    private static func collect(
        _ body: HTTPClientResponse.Body, limit: Int64, what: String
    ) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        do {
            for try await chunk in body {
                guard Int64(collected.readableBytes) + Int64(chunk.readableBytes) <= limit else {
                    throw ImportLimits.answerTooLarge("\(what) from the Xtream panel", limit: limit)
                }
                var chunk = chunk
                collected.writeBuffer(&chunk)
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.fetchFailed("the answer to \(what) broke off: \(error)")
        }
        return collected
    }
}
