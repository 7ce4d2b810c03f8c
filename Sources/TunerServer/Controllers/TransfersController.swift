import Foundation
import Hummingbird
import Transfers
import TunerAPI
import TunerApp

/// The transfers' JSON API under `/api/v1/transfers`: list, add, inspect, change (pause, resume,
/// retry, position, url), delete, and pause or resume everything. Each route decodes, calls one
/// method of ``Downloads`` and encodes.
struct TransfersController {
    let downloads: Downloads

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.transfers) { _, _ in TransferList(transfers: await downloads.list().map(TransferAnswer.init)) }
        router.add(.addTransfers, use: add)
        router.add(.pauseAllTransfers) { _, _ in
            await downloads.pauseAll()
            return MessageAnswer(message: "all transfers paused")
        }
        router.add(.resumeAllTransfers) { _, _ in
            await downloads.resumeAll()
            return MessageAnswer(message: "all transfers resumed")
        }
        router.add(.purgeTransfers) { _, _ in
            let count = try await downloads.purgeFinished()
            return MessageAnswer(message: "\(count) finished transfers purged")
        }
        router.add(.transfer) { _, context in
            let id = try Self.id(context)
            return TransferAnswer(try await downloads.entry(id: id))
        }
        router.add(.changeTransfer, use: patch)
        router.add(.removeTransfer) { _, context in
            let id = try Self.id(context)
            try await downloads.delete(id: id)
            return MessageAnswer(message: "transfer \(id) deleted")
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
                throw FeatureError(
                    .invalid,
                    """
                    the body must be JSON like {\"url\": \"https://…\", \"sha256\": \"…\"} or {\"transfers\": \
                    [...]}: \(error)
                    """
                )
            }
        }
        let added = try await downloads.add(items)
        return EditedResponse(
            status: .created,
            response: TransferList(transfers: added.map { TransferAnswer($0, progress: nil) }))
    }

    @Sendable func patch(request: Request, context: TunerRequestContext) async throws -> TransferAnswer {
        let id = try Self.id(context)
        let body: ChangeTransferRequest
        do {
            body = try await request.decode(as: ChangeTransferRequest.self, context: context)
        } catch {
            throw FeatureError(.invalid, "the body must be JSON like {\"action\": \"pause\"}: \(error)")
        }
        return TransferAnswer(try await downloads.change(id: id, body))
    }

    private static func id(_ context: TunerRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw FeatureError(.invalid, "a transfer id is a whole number")
        }
        return id
    }
}
