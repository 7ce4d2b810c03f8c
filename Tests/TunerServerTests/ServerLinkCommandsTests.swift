import AsyncHTTPClient
import Foundation
import MediaFormats
import Testing
import TunerAPI
import TunerTesting

@testable import ServerLink

/// `ServerLink`'s commands against a real server: each carries an idempotency key, waits in the
/// outbox until answered, and a resend (now or by a later run) never acts twice.
@Suite struct ServerLinkCommandsTests {
    /// Like the CLI's: a refused connection fails at once instead of being retried until the timeout.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func outbox() -> CommandOutbox {
        CommandOutbox(directory: NSTemporaryDirectory() + "tuner-outbox-\(UUID().uuidString)")
    }

    static func transferCount(_ link: ServerLink) async throws -> Int {
        struct Item: Decodable { var id: Int64 }
        struct List: Decodable { var transfers: [Item] }
        return try await link.send(.transfers).decode(List.self).transfers.count
    }

    @Test("a command the server never got stays in the outbox, and goes out with its key when it can")
    func anUndeliveredCommandWaitsInTheOutbox() async throws {
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        let outbox = Self.outbox()
        defer { try? FileManager.default.removeItem(atPath: outbox.directory) }
        let refusing = try RefusingPort()
        var nowhere = ServerLink(
            baseURL: "http://127.0.0.1:\(refusing.port)", token: nil, httpClient: Self.client, outbox: outbox)
        nowhere.commandRetry = RetryPolicy(baseDelay: 0.01, maximumDelay: 0.02, maximumAttempts: 2)
        let body = AddTransfersRequest(transfers: [
            AddTransferRequest(url: harness.origin.baseURL + "/files/o.bin?size=10")
        ])
        await #expect(throws: ServerLinkError.self) { try await nowhere.send(.addTransfers, body: body) }
        let kept = outbox.entries()
        #expect(kept.count == 1 && kept.first?.method == "POST" && kept.first?.target == "/api/v1/transfers")
        #expect(kept.first?.key.count == 32)

        // Another server's link leaves it alone.
        let link = ServerLink(
            baseURL: harness.server.baseURL, token: nil, httpClient: HTTPClient.shared, outbox: outbox)
        #expect(await link.deliverOutbox().isEmpty)
        #expect(outbox.entries().count == 1)
        // The right one sends it, once.
        let moved = try #require(kept.first)
        outbox.remove(key: moved.key)
        var entry = moved
        entry.server = harness.server.baseURL
        try outbox.keep(entry)
        let delivered = await link.deliverOutbox()
        #expect(delivered.count == 1)
        #expect(try delivered.first?.result.get().status == 201)
        #expect(outbox.entries().isEmpty)
        #expect(try await Self.transferCount(link) == 1)
        try await harness.stop()
    }

    @Test("a command whose answer was lost is resent from the outbox and replayed, not applied again")
    func aLostAnswerIsReplayed() async throws {
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        let outbox = Self.outbox()
        defer { try? FileManager.default.removeItem(atPath: outbox.directory) }
        let link = ServerLink(
            baseURL: harness.server.baseURL, token: nil, httpClient: HTTPClient.shared, outbox: outbox)
        let body = try JSONEncoder().encode(
            AddTransfersRequest(transfers: [AddTransferRequest(url: harness.origin.baseURL + "/files/l.bin?size=10")]))
        let answer = try await link.send(
            .addTransfers,
            body: AddTransfersRequest(transfers: [
                AddTransferRequest(url: harness.origin.baseURL + "/files/l.bin?size=10")
            ]))
        #expect(answer.status == 201 && !answer.isReplay)
        #expect(outbox.entries().isEmpty, "answered commands leave the outbox")

        // The same command again, as if its answer had been lost before the outbox heard it:
        // the server got it once under this key.
        var request = HTTPClientRequest(url: harness.server.baseURL + "/api/v1/transfers")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: "0123456789abcdef0123456789abcdef")
        request.body = .bytes(.init(data: body))
        // As long as the link itself waits: a loaded machine can take seconds over a POST.
        let first = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(first.status.code == 201)
        try outbox.keep(
            CommandOutbox.Entry(
                key: "0123456789abcdef0123456789abcdef", server: harness.server.baseURL, method: "POST",
                target: "/api/v1/transfers", body: body, createdAt: Date()))
        let delivered = await link.deliverOutbox()
        let replay = try #require(try delivered.first?.result.get())
        #expect(replay.status == 201 && replay.isReplay)
        #expect(outbox.entries().isEmpty)
        #expect(try await Self.transferCount(link) == 2, "one by the first send, one by the key: none twice")
        try await harness.stop()
    }

    @Test("the events client connects, hears a change, and resumes from where it was")
    func theEventsClientFollowsAndResumes() async throws {
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        let link = ServerLink(baseURL: harness.server.baseURL, token: nil, httpClient: HTTPClient.shared)
        let stream = ServerEventStream(link: link, topics: ["transfers"])
        var updates = stream.updates().makeAsyncIterator()
        let opening = await updates.next()
        guard case .connected(let epoch, _) = opening else {
            Issue.record("the first update is the connection, not \(String(describing: opening))")
            return
        }
        _ = try await link.send(
            .addTransfers,
            body: AddTransfersRequest(transfers: [
                AddTransferRequest(url: harness.origin.baseURL + "/files/e.bin?size=10")
            ]))
        var heard: ServerEventMessage?
        while let update = await updates.next() {
            if case .event(let event) = update, event.type == "transfer.changed" {
                heard = event
                break
            }
        }
        let event = try #require(heard)
        #expect(event.epoch == epoch && event.topic == "transfers")
        struct Changed: Decodable { var id: Int64 }
        #expect(try event.decodeData(Changed.self).id == 1)
        // Where a reconnect would resume from.
        let resume = stream.address(
            resumingFrom: ServerEventStream.Position(epoch: epoch, sequence: event.sequence))
        #expect(
            resume.hasPrefix("ws://127.0.0.1:")
                && resume.hasSuffix("?topics=transfers&epoch=\(epoch)&after=\(event.sequence)"))
        try await harness.stop()
    }
}
