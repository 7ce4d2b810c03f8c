import ArgumentParser
import Foundation
import TunerAPI

/// `tuner recordings …`: the running server's DVR: list, record a programme or a span, keep,
/// delete.
struct RecordingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings",
        abstract: "Recordings of the running server: list, record, keep, delete.",
        subcommands: [List.self, Add.self, Keep.self, Delete.self], defaultSubcommand: List.self)

    /// The DVR runs in the server.
    static func client(_ target: Cache.Target) async throws -> ServerClient {
        guard let client = try await target.client() else {
            throw ValidationError("no Tuner server is running for this data folder; start one with `tuner serve`")
        }
        return client
    }

    static func expect(_ answer: (Int, Data), _ statuses: Set<Int>) throws -> Data {
        guard statuses.contains(answer.0) else {
            throw CLIError("server answered \(answer.0): \(String(decoding: answer.1, as: UTF8.self))")
        }
        return answer.1
    }

    static func line(_ recording: RecordingAnswer) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let start = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(recording.start)))
        var text = "\(recording.id)\t\(recording.state)\t\(start)\t\(recording.channelName)\t\(recording.title)"
        if recording.bytes > 0 { text += "\t\(recording.bytes / 1_000_000) MB" }
        if recording.keep { text += "\tkept" }
        if let conflict = recording.conflict { text += "\n\twill not record: \(conflict)" }
        if let reason = recording.reason, recording.state == "failed" { text += "\n\t\(reason)" }
        for gap in recording.gaps { text += "\n\tgap of \(gap.to - gap.from) s: \(gap.reason)" }
        return text
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List recordings: scheduled (with conflicts), recording, done, failed.")
        @OptionGroup var target: Cache.Target
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let body = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.recordings), [200])
            if json {
                print(String(decoding: body, as: UTF8.self))
                return
            }
            let list = try JSONDecoder().decode(RecordingList.self, from: body)
            if list.recordings.isEmpty { print("no recordings") }
            for recording in list.recordings { print(RecordingsCommand.line(recording)) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Record a programme of the guide (--programme), or a channel over a span (--channel, --start, "
                + "--minutes)."
        )
        @OptionGroup var target: Cache.Target
        @Option(help: "The programme's id (from `tuner guide`).") var programme: Int64?
        @Option(help: "The channel's id.") var channel: Int64?
        @Option(help: "The start, in seconds since 1970 (with --channel).") var start: Int64?
        @Option(help: "How long, in minutes (with --channel).") var minutes: Int64?
        @Option(help: "The recording's title (with --channel).") var title: String?
        @Option(help: "Seconds recorded before the start.") var paddingBefore: Int?
        @Option(help: "Seconds recorded after the end.") var paddingAfter: Int?
        @Option(help: "Of two recordings that cannot both have a connection, the higher records.") var priority: Int?

        func run() async throws {
            var request = AddRecordingRequest(
                programmeID: programme, channelID: channel, title: title, paddingBeforeSeconds: paddingBefore,
                paddingAfterSeconds: paddingAfter, priority: priority)
            if programme == nil {
                guard channel != nil, let start, let minutes, minutes > 0, minutes <= 1440 else {
                    throw ValidationError("give --programme, or --channel with --start and --minutes (1 to 1440)")
                }
                request.start = start
                request.stop = start + minutes * 60
            }
            let body = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.addRecording, body: request), [200, 201])
            print(RecordingsCommand.line(try JSONDecoder().decode(RecordingAnswer.self, from: body)))
        }
    }

    struct Keep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a recording from retention (--no to let retention have it again).")
        @OptionGroup var target: Cache.Target
        @Argument(help: "The recording's id.") var id: Int64
        @Flag(help: "Let retention delete it again.") var no = false

        func run() async throws {
            let body = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(
                    .changeRecording(id: id), body: ChangeRecordingRequest(keep: !no)), [200])
            print(RecordingsCommand.line(try JSONDecoder().decode(RecordingAnswer.self, from: body)))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a scheduled recording, or delete a recording with its files.")
        @OptionGroup var target: Cache.Target
        @Argument(help: "The recording's id.") var id: Int64

        func run() async throws {
            _ = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.removeRecording(id: id)), [200])
            print("removed recording \(id)")
        }
    }
}

/// `tuner rules …`: the DVR's standing orders: series, keyword and time rules.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Recording rules of the running server: series, keyword and time.",
        subcommands: [List.self, Add.self, Delete.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rules.")
        @OptionGroup var target: Cache.Target
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let body = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.rules), [200])
            if json {
                print(String(decoding: body, as: UTF8.self))
                return
            }
            let list = try JSONDecoder().decode(RuleList.self, from: body)
            if list.rules.isEmpty { print("no rules") }
            for rule in list.rules { print(RulesCommand.line(rule)) }
        }
    }

    static func line(_ rule: RecordingRule) -> String {
        let channels =
            rule.channelIDs.isEmpty
            ? "any channel" : "channels " + rule.channelIDs.map(String.init).joined(separator: ",")
        var text = "\(rule.id)\t\(rule.kind.rawValue)\t\(rule.name)\t\(channels)"
        switch rule.kind {
        case .series: text += rule.newOnly ? "\tnew episodes only" : "\tevery airing"
        case .keyword: text += "\t\(rule.keywordMatch.rawValue) '\(rule.keyword ?? "")'"
        case .time: text += "\t\(rule.time ?? "") for \(rule.durationMinutes ?? 0) min on days \(rule.weekdays)"
        case .catchup: text += "\tkeeps \(rule.keepDays ?? 0) days of channels \(rule.channelIDs)"
        }
        if let count = rule.keepCount { text += "\tkeep \(count)" }
        if let days = rule.keepDays { text += "\tkeep \(days) days" }
        return text
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a rule: --series TITLE, --keyword WORDS or --at HH:MM with --days and --minutes.")
        @OptionGroup var target: Cache.Target
        @Option(help: "Record every programme with this title.") var series: String?
        @Flag(help: "Series: only episodes not recorded before.") var newOnly = false
        @Option(help: "Record programmes whose title holds these words.") var keyword: String?
        @Option(help: "Keyword: contains, word (default) or exact.") var match: String?
        @Flag(help: "Keyword: look in descriptions too.") var descriptions = false
        @Option(help: "Record at this time (HH:MM, the server's time zone).") var at: String?
        @Flag(help: "Local catch-up: keep --channels tuned and their time-shift for --keep-days (1 to 30).")
        var catchup = false
        @Option(help: "Time: weekdays, 1 (Monday) to 7, comma-separated.") var days: String?
        @Option(help: "Time: how long, in minutes.") var minutes: Int?
        @Option(help: "Channel ids, comma-separated (default: any channel).") var channels: String?
        @Option(help: "The rule's name.") var name: String?
        @Option(help: "Seconds recorded before each programme.") var paddingBefore: Int?
        @Option(help: "Seconds recorded after each programme.") var paddingAfter: Int?
        @Option(help: "Priority when connections are short.") var priority: Int?
        @Option(help: "Keep at most this many recordings.") var keep: Int?
        @Option(help: "Keep recordings at most this many days (catch-up: the days kept).") var keepDays: Int?

        func run() async throws {
            func numbers(_ text: String?, _ what: String) throws -> [Int64]? {
                guard let text else { return nil }
                let values = text.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
                guard values.allSatisfy({ $0 != nil }) else {
                    throw ValidationError("\(what) are numbers separated by commas")
                }
                return values.compactMap { $0 }
            }
            let kinds = [series != nil, keyword != nil, at != nil, catchup].filter { $0 }.count
            guard kinds == 1 else { throw ValidationError("give one of --series, --keyword, --at or --catchup") }
            let kind: RecordingRule.Kind =
                series != nil ? .series : keyword != nil ? .keyword : at != nil ? .time : .catchup
            var matchKind: RecordingRule.KeywordMatch?
            if let match {
                guard let parsed = RecordingRule.KeywordMatch(rawValue: match) else {
                    throw ValidationError("--match is contains, word or exact")
                }
                matchKind = parsed
            }
            let request = RuleRequest(
                kind: kind, name: name, channelIDs: try numbers(channels, "channel ids"), title: series,
                newOnly: newOnly, keyword: keyword, keywordMatch: matchKind, searchDescription: descriptions,
                weekdays: try numbers(days, "days")?.map { Int(clamping: $0) }, time: at, durationMinutes: minutes,
                paddingBeforeSeconds: paddingBefore, paddingAfterSeconds: paddingAfter, priority: priority,
                keepCount: keep, keepDays: keepDays)
            let body = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.addRule, body: request), [201])
            print(RulesCommand.line(try JSONDecoder().decode(RecordingRule.self, from: body)))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a rule; its scheduled recordings go, finished ones stay.")
        @OptionGroup var target: Cache.Target
        @Argument(help: "The rule's id.") var id: Int64

        func run() async throws {
            _ = try RecordingsCommand.expect(
                try await RecordingsCommand.client(target).send(.removeRule(id: id)), [200])
            print("removed rule \(id)")
        }
    }
}
