import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ServerLink
import TunerAPI
import TunerApp

/// Talks to a running `tuner serve` when there is one, so commands act on the live server.
struct ServerClient {
    let baseURL: String
    let token: String?
    /// Commands that got no answer yet (`<data>/outbox`), sent again by the next command.
    let outbox: CommandOutbox?

    /// The running server for `dataDirectory`: `--server`, else TUNER_SERVER, else the address
    /// the server wrote into the data folder, if it answers its health check. Nil means: act on the
    /// data folder. An explicit `server` that does not answer throws.
    static func find(server: String?, dataDirectory: String) async throws -> ServerClient? {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let server { candidates.append(server) }
        if let server = environment["TUNER_SERVER"] { candidates.append(server) }
        if let folder = try? DataFolder(path: dataDirectory),
            let text = try? String(contentsOfFile: folder.serverAddressPath, encoding: .utf8)
        {
            candidates.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let token =
            environment["TUNER_TOKEN"]
            ?? (try? DataFolder(path: dataDirectory)).flatMap { folder in
                FileManager.default.fileExists(atPath: folder.tokenPath) ? try? folder.loadOrCreateToken() : nil
            }
        let outbox = (try? DataFolder(path: dataDirectory)).map { CommandOutbox(directory: $0.path + "/outbox") }
        for candidate in candidates {
            let client = ServerClient(
                baseURL: candidate.hasSuffix("/") ? String(candidate.dropLast()) : candidate, token: token,
                outbox: outbox)
            do {
                let (status, _) = try await client.send(.health)
                if status == 200 {
                    await client.deliverOutbox()
                    return client
                }
            } catch  where !Self.nobodyListens(error) {
                // Something accepted the connection but did not answer in time (a server under
                // heavy load): acting on the data folder behind its back could undo its work, so
                // the command goes to the server and reports what the server says.
                return client
            } catch {}
            if let server, candidate == server {
                // An explicit --server that does not answer is an error, not a reason to act locally.
                throw ValidationError("no Tuner server answers at \(server)")
            }
        }
        return nil
    }

    /// True when the error says no server listens there (refused, unreachable, or the connection
    /// never completed), as after a crash that left server.url behind.
    static func nobodyListens(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let error = error as? IOError {
            return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ECONNRESET].contains(error.errnoCode)
        }
        if let error = error as? HTTPClientError { return error == .connectTimeout || error == .remoteConnectionClosed }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        return false
    }

    /// Unlike `HTTPClient.shared`, a refused connection fails at once instead of being retried
    /// until the deadline: a crashed server leaves its server.url behind, and every command would
    /// otherwise wait 30 s on that dead address before acting on the data folder.
    private static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The API through the shared endpoints and bodies (`TunerAPI`), never a hand-written path.
    var link: ServerLink { ServerLink(baseURL: baseURL, token: token, httpClient: Self.httpClient, outbox: outbox) }

    /// Sends what earlier commands left in the outbox (their answers were lost), and says so.
    func deliverOutbox() async {
        for (entry, result) in await link.deliverOutbox() {
            let what = "an earlier command (\(entry.method) \(entry.target), from \(entry.createdAt))"
            switch result {
            case .success(let answer) where (200..<300).contains(answer.status):
                FileHandle.standardError.write(Data("\(what) reached the server: \(answer.status)\n".utf8))
            case .success(let answer):
                FileHandle.standardError.write(
                    Data("\(what) reached the server, which refused it: \(answer.status) \(answer.message)\n".utf8))
            case .failure(let error):
                FileHandle.standardError.write(Data("\(what) is still undelivered: \(error)\n".utf8))
            }
        }
    }

    func send(_ endpoint: APIEndpoint) async throws -> (Int, Data) {
        let answer = try await link.send(endpoint)
        return (answer.status, answer.body)
    }

    func send(_ endpoint: APIEndpoint, body: some Encodable) async throws -> (Int, Data) {
        let answer = try await link.send(endpoint, body: body)
        return (answer.status, answer.body)
    }
}
