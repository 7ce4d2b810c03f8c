import Foundation
import HTTPTypes
import Hummingbird
import MediaCache
import TunerAPI
import TunerApp

/// The DVR's JSON API under `/api/v1/recordings` and `/api/v1/rules`, and a recording's file with
/// Range requests (players seek in it). Each route decodes, calls one method of ``DVR`` and
/// encodes.
struct RecordingsController {
    let dvr: DVR

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.recordings) { _, _ in RecordingList(recordings: try await dvr.list()) }
        router.add(.addRecording) { request, context in
            let body: AddRecordingRequest
            do {
                body = try await request.decode(as: AddRecordingRequest.self, context: context)
            } catch {
                throw FeatureError(
                    .invalid,
                    "the body must be JSON like {\"programmeID\": 7} or {\"channelID\": 1, \"start\": …, "
                        + "\"stop\": …}: \(error)")
            }
            let (answer, created) = try await dvr.add(body)
            return EditedResponse(status: created ? .created : .ok, response: answer)
        }
        router.add(.recording) { _, context in try await dvr.recording(id: try Self.id(context)) }
        router.add(.changeRecording) { request, context in
            let id = try Self.id(context)
            let body: ChangeRecordingRequest
            do {
                body = try await request.decode(as: ChangeRecordingRequest.self, context: context)
            } catch {
                throw FeatureError(.invalid, "the body must be JSON like {\"keep\": true}: \(error)")
            }
            return try await dvr.change(id: id, keep: body.keep)
        }
        router.add(.removeRecording) { _, context in
            let id = try Self.id(context)
            try await dvr.delete(id: id)
            return MessageAnswer(message: "recording \(id) removed")
        }
        router.add(.recordingFile, use: file)
        router.add(.rules) { _, _ in RuleList(rules: try await dvr.rules()) }
        router.add(.addRule) { request, context in
            let body: RuleRequest
            do {
                body = try await request.decode(as: RuleRequest.self, context: context)
            } catch {
                throw FeatureError(
                    .invalid, "the body must be JSON like {\"kind\": \"series\", \"title\": \"News\"}: \(error)")
            }
            return EditedResponse(status: .created, response: try await dvr.addRule(body))
        }
        router.add(.removeRule) { _, context in
            let id = try Self.id(context)
            try await dvr.removeRule(id: id)
            return MessageAnswer(message: "rule \(id) removed")
        }
    }

    /// A recording's file: whole, or one byte range (`206`); several ranges get the whole file.
    @Sendable func file(request: Request, context: TunerRequestContext) async throws -> Response {
        let id = try Self.id(context)
        var part = 1
        if let text = request.uri.queryParameters.get("part") {
            guard let number = Int(text), number >= 1 else { throw FeatureError.invalid("part is a number from 1") }
            part = number
        }
        return try await Self.serve(try await dvr.filePath(id: id, part: part), request: request, context: context)
    }

    /// A file (a recording, a time-shift segment) as a response: whole, or the one byte range asked
    /// for; `missing` says why when it has no bytes.
    static func serve(
        _ path: String, request: Request, context: TunerRequestContext,
        missing: String = "this recording has no bytes yet"
    ) async throws -> Response {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64, size > 0 else {
            throw FeatureError(.notFound, missing)
        }
        var headers = HTTPFields()
        headers[.contentType] = path.hasSuffix(".mp4") ? "video/mp4" : "video/mp2t"
        headers[.acceptRanges] = "bytes"
        let fileIO = FileIO()
        var range = Int64(0)..<size
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range], let asked = ByteRangeRequest(headerValue: header),
            asked.ranges.count == 1
        {
            guard let resolved = asked.ranges[0].resolve(length: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            range = resolved
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
        }
        headers[.contentLength] = String(range.count)
        if request.method == .head { return Response(status: status, headers: headers) }
        let body = try await fileIO.loadFile(
            path: path, range: Int(range.lowerBound)...Int(range.upperBound - 1), context: context)
        return Response(status: status, headers: headers, body: body)
    }

    private static func id(_ context: TunerRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw FeatureError(.invalid, "a recording or rule id is a whole number")
        }
        return id
    }
}

extension RecordingAnswer: ResponseEncodable {}
extension RecordingList: ResponseEncodable {}
extension RecordingRule: ResponseEncodable {}
extension RuleList: ResponseEncodable {}
