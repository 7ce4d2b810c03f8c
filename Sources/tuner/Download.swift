import ArgumentParser
import Foundation
import Logging
import Transfers
import TunerAPI
import TunerApp

/// `tuner download URL` and `tuner download --input-file FILE`: queue downloads on the running
/// server, or in the data folder; with `--wait`, follow them to the end.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download files into <data>/downloads (resumable, verified).",
        discussion: """
            With a running server the downloads are queued there. Without one they are queued in the
            data folder (and run when `tuner serve` starts), or, with --wait, run right here.
            """)

    @Argument(help: "The URL to download.") var url: String?
    @Option(
        name: .customLong("input-file"),
        help: "A file with one URL per line (blank lines and # comments skipped), like aria2c -i.")
    var inputFile: String?
    @Option(help: "Expected SHA-256 (hex) of the file; a mismatch fails the download.") var sha256: String?
    @Option(help: "Priority: higher runs first (default 0).") var priority: Int = 0
    @Option(help: "File name under <data>/downloads (default: from the URL).") var out: String?
    @Option(name: .customLong("header"), help: "A header sent with every request, \"Name: value\" (repeatable).")
    var headers: [String] = []
    @Flag(
        help:
            """
            The URL is an HLS playlist (master or media): download one rendition, its keys and init sections into \
            a folder that plays offline.
            """
    )
    var hls = false
    @Option(
        name: .customLong("max-bandwidth"), help: "With --hls: the highest variant bandwidth wanted (bits per second).")
    var maxBandwidth: Int?
    @Option(
        name: .customLong("audio-language"),
        help:
            """
            With --hls: the audio language wanted (e.g. en, pt-BR) when the variant's sound is a separate \
            rendition; default: the stream's default.
            """
    )
    var audioLanguage: String?
    @Flag(help: "Wait until the downloads finish, showing progress; exit non-zero if one fails.") var wait = false
    @Option(help: "Downloads at once when they run in this process (--wait without a server); default 3.")
    var concurrency: Int?
    @OptionGroup var target: TransfersTarget

    func run() async throws {
        var urls: [String] = []
        if let url { urls.append(url) }
        if let inputFile {
            guard let text = try? String(contentsOfFile: inputFile, encoding: .utf8) else {
                throw ValidationError("cannot read --input-file \(inputFile)")
            }
            urls += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !urls.isEmpty else { throw ValidationError("give a URL or --input-file FILE") }
        if urls.count > 1, out != nil || sha256 != nil {
            throw ValidationError("--out and --sha256 apply to a single URL")
        }
        var parsedHeaders: [TransferHeader] = []
        for line in headers {
            guard let header = TransferHeader(line: line) else {
                throw ValidationError("--header must look like \"Name: value\", got '\(line)'")
            }
            parsedHeaders.append(header)
        }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be 1 or more") }
        var properties: [String: String] = [:]
        if let maxBandwidth {
            guard hls, maxBandwidth > 0 else {
                throw ValidationError("--max-bandwidth is a positive number of bits per second, for --hls")
            }
            properties["maxBandwidth"] = String(maxBandwidth)
        }
        if let audioLanguage {
            guard hls, !audioLanguage.isEmpty else {
                throw ValidationError("--audio-language is a language tag such as en, for --hls")
            }
            properties["audioLanguage"] = audioLanguage
        }
        let requests = urls.map { url in
            TransferRequest(
                kind: hls ? .downloadHLS : .downloadFile, sourceURL: url, headers: parsedHeaders, destinationName: out,
                priority: priority, expectedSHA256: sha256, properties: properties)
        }
        try await Self.queue(requests, wait: wait, concurrency: concurrency, target: target)
    }

    /// Queues `requests` on the running server or in the data folder; with `wait`, follows them
    /// to the end (running them here when no server runs) and fails when one fails.
    static func queue(_ requests: [TransferRequest], wait: Bool, concurrency: Int?, target: TransfersTarget)
        async throws
    {
        if let client = try await target.client() {
            let items = requests.map { request in
                AddTransferRequest(
                    url: request.sourceURL, kind: request.kind.rawValue,
                    properties: request.properties.isEmpty ? nil : request.properties,
                    headers: request.headers.isEmpty
                        ? nil : Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                    name: request.destinationName, priority: request.priority, sha256: request.expectedSHA256)
            }
            let (status, body) = try await client.send(.addTransfers, body: AddTransfersRequest(transfers: items))
            guard status == 201 else { throw CLIError("server answered \(status): \(TransfersTarget.message(body))") }
            let added = try TransfersTarget.decodeList(body)
            if !wait || added.count <= 20 {
                for task in added { print("queued \(task.id) \(task.destinationName)") }
            }
            if wait {
                let finished = try await TransferWatch.follow(added, client: client)
                try TransferWatch.report(finished)
            }
            return
        }

        var configuration = TransferManager.Configuration(runsStoredTasks: false)
        if let concurrency {
            configuration.maximumActive = concurrency
            configuration.maximumActivePerHost = concurrency
        }
        let local = try await target.localManager(configuration: configuration)
        let added: [TransferTask]
        do {
            added = try await local.manager.add(requests)
        } catch {
            await local.shutdown()  // the manager's HTTP client must be shut down before it goes
            throw error
        }
        guard wait else {
            for task in added {
                print("queued \(task.id) \(task.destinationName) (it runs when `tuner serve` starts, or use --wait)")
            }
            await local.shutdown()
            return
        }
        let finished = await TransferWatch.follow(added, manager: local.manager)
        await local.shutdown()
        try TransferWatch.report(finished)
    }
}

/// `tuner upload FILE --to URL [--tus]`: queue an upload (tus, or one plain PUT/POST).
struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload a file with tus (resumable) or as a plain HTTP PUT/POST.",
        discussion: """
            With --tus, URL is a tus 1.0 creation endpoint (Tuner's own is /api/v1/uploads); the upload
            resumes from the server's offset after any failure or restart. Without it the file is sent
            as one PUT (or POST with --post), from the start on every attempt.
            """)

    @Argument(help: "The file to upload.") var file: String
    @Option(help: "Where to send it: a tus endpoint (with --tus) or the PUT/POST target.") var to: String
    @Flag(help: "Use the tus 1.0 resumable upload protocol.") var tus = false
    @Flag(help: "Send a POST instead of a PUT (plain uploads).") var post = false
    @Option(name: .customLong("header"), help: "A header sent with every request, \"Name: value\" (repeatable).")
    var headers: [String] = []
    @Option(help: "Priority: higher runs first (default 0).") var priority: Int = 0
    @Flag(help: "Wait until the upload finishes; exit non-zero if it fails.") var wait = false
    @OptionGroup var target: TransfersTarget

    func run() async throws {
        let path = (file as NSString).standardizingPath
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parsedHeaders: [TransferHeader] = []
        for line in headers {
            guard let header = TransferHeader(line: line) else {
                throw ValidationError("--header must look like \"Name: value\", got '\(line)'")
            }
            parsedHeaders.append(header)
        }
        if tus && post { throw ValidationError("--post is for plain uploads; tus uses its own requests") }
        var properties = ["destinationURL": to]
        if post { properties["method"] = "POST" }
        let request = TransferRequest(
            kind: tus ? .uploadTus : .uploadPlain, sourceURL: absolute, headers: parsedHeaders,
            destinationName: (absolute as NSString).lastPathComponent, priority: priority, properties: properties)
        try await Download.queue([request], wait: wait, concurrency: nil, target: target)
    }
}
