import Foundation
import Hummingbird
import Transfers
import TunerAPI
import TunerApp

/// The transfers' JSON API under `/api/v1/transfers`: list, add, inspect, change (pause, resume,
/// retry, position, url), delete, and pause or resume everything.
struct TransfersController {
    let engine: TunerEngine

    /// A task with its live progress, as the JSON body.
    struct TransferBody: ResponseEncodable {
        var task: TransferTask
        var progress: TransferProgress?

        func encode(to encoder: any Encoder) throws {
            try task.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(progress, forKey: .progress)
        }

        enum Keys: String, CodingKey { case progress }
    }

    struct TransferList: ResponseEncodable { var transfers: [TransferBody] }
    struct Message: ResponseEncodable { var message: String }

    func addRoutes(to router: Router<TunerRequestContext>) {
        let api = router.group("/api/v1/transfers")
        api.get { _, _ in
            var bodies: [TransferBody] = []
            for task in await engine.transfers.list() {
                bodies.append(TransferBody(task: task, progress: await engine.transfers.progress(id: task.id)))
            }
            return TransferList(transfers: bodies)
        }
        api.post(use: add)
        api.post("pause-all") { _, _ in
            await engine.transfers.pauseAll()
            return Message(message: "all transfers paused")
        }
        api.post("resume-all") { _, _ in
            await engine.transfers.resumeAll()
            return Message(message: "all transfers resumed")
        }
        api.post("purge") { _, _ in
            let count = try await mapped { try await engine.transfers.purgeFinished() }
            return Message(message: "\(count) finished transfers purged")
        }
        api.get(":id") { _, context in
            let id = try Self.id(context)
            guard let task = await engine.transfers.task(id: id) else {
                throw Self.httpError(TransferManagerError.notFound(id))
            }
            return TransferBody(task: task, progress: await engine.transfers.progress(id: id))
        }
        api.patch(":id", use: patch)
        api.delete(":id") { _, context in
            let id = try Self.id(context)
            try await mapped { try await engine.transfers.delete(id: id) }
            return Message(message: "transfer \(id) deleted")
        }
    }

    @Sendable func add(request: Request, context: TunerRequestContext) async throws -> EditedResponse<TransferList> {
        let buffer = try await request.body.collect(upTo: 16 << 20)
        let data = Data(buffer: buffer)
        let items: [AddTransferRequest]
        if let many = try? JSONDecoder().decode(AddTransfersRequest.self, from: data) {
            items = many.transfers
        } else {
            do {
                items = [try JSONDecoder().decode(AddTransferRequest.self, from: data)]
            } catch {
                throw HTTPError(
                    .badRequest,
                    message:
                        "the body must be JSON like {\"url\": \"https://…\", \"sha256\": \"…\"} or {\"transfers\": [...]}: \(error)"
                )
            }
        }
        guard !items.isEmpty else { throw HTTPError(.badRequest, message: "no transfers given") }
        let requests = try items.map { item in
            let kind = TransferKind(rawValue: item.kind ?? TransferKind.downloadFile.rawValue)
            var source = item.url
            let remote = kind == .uploadTus || kind == .uploadPlain ? item.properties?["destinationURL"] : item.url
            if let remote { try checkFetchPolicy(remote) }
            if kind == .uploadTus || kind == .uploadPlain {
                // An upload reads a local file: only from the folders the user allowed.
                do {
                    source = try engine.localFiles.fileToRead(item.url)
                } catch {
                    throw HTTPError(.forbidden, message: "\(error)")
                }
            }
            return TransferRequest(
                kind: kind, sourceURL: source,
                headers: (item.headers ?? [:]).sorted { $0.key < $1.key }.map {
                    TransferHeader(name: $0.key, value: $0.value)
                },
                destinationName: item.name, priority: item.priority ?? 0, position: item.position,
                expectedSHA256: item.sha256, paused: item.paused ?? false, properties: item.properties ?? [:])
        }
        let added = try await mapped { try await engine.transfers.add(requests) }
        return EditedResponse(
            status: .created, response: TransferList(transfers: added.map { TransferBody(task: $0, progress: nil) }))
    }

    /// Refuses (403) a URL the server may not connect to (`--allow-fetch`).
    func checkFetchPolicy(_ text: String) throws {
        let policy = engine.configuration.allowFetch
        guard policy != .any else { return }
        guard let url = URL(string: text), policy.permits(url) else {
            throw HTTPError(.forbidden, message: policy.refusal(text))
        }
    }

    @Sendable func patch(request: Request, context: TunerRequestContext) async throws -> TransferBody {
        let id = try Self.id(context)
        let body: ChangeTransferRequest
        do {
            body = try await request.decode(as: ChangeTransferRequest.self, context: context)
        } catch {
            throw HTTPError(.badRequest, message: "the body must be JSON like {\"action\": \"pause\"}: \(error)")
        }
        let transfers = engine.transfers
        try await mapped {
            switch body.action {
            case "pause": try await transfers.pause(id: id)
            case "resume": try await transfers.resume(id: id)
            case "retry": try await transfers.retry(id: id)
            case "cancel": try await transfers.cancel(id: id)
            case "position":
                guard let position = body.position, position >= 0 else {
                    throw TransferManagerError.invalidRequest(
                        "the position action needs \"position\": a whole number from 0")
                }
                try await transfers.move(id: id, to: position)
            case "url":
                guard let url = body.url else {
                    throw TransferManagerError.invalidRequest("the url action needs \"url\"")
                }
                try checkFetchPolicy(url)
                try await transfers.changeSource(id: id, to: url)
            default:
                throw TransferManagerError.invalidRequest(
                    "unknown action '\(body.action)'; use pause, resume, retry, cancel, position or url")
            }
        }
        guard let task = await transfers.task(id: id) else { throw Self.httpError(TransferManagerError.notFound(id)) }
        return TransferBody(task: task, progress: await transfers.progress(id: id))
    }

    private static func id(_ context: TunerRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw HTTPError(.badRequest, message: "a transfer id is a whole number")
        }
        return id
    }

    private func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as TransferManagerError {
            throw Self.httpError(error)
        }
    }

    static func httpError(_ error: TransferManagerError) -> HTTPError {
        switch error {
        case .notFound: return HTTPError(.notFound, message: error.description)
        case .invalidState: return HTTPError(.conflict, message: error.description)
        case .invalidRequest: return HTTPError(.badRequest, message: error.description)
        }
    }
}
