import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

/// `GET|HEAD /live/<name>/index.m3u8` and `/live/<name>/seg<N>.ts`: the streams of
/// `TestOrigin.serveLive(playlist:name:window:)`.
extension OriginRouter {
    func livePlan(rest: String, target: RequestTarget, request: HTTPRequestHead) -> ResponsePlan {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map {
            RequestTarget.percentDecoded($0)
        }
        guard parts.count == 2, let stream = state.liveStreams.stream(parts[0]) else {
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let now = NIODeadline.now()
        let faults = RequestedFaults(query: target.query)
        if let status = faults.status {
            return errorPlan(status: status, faults: faults, request: request)
        }

        let file = parts[1]
        if file == "index.m3u8" {
            let sequence = stream.mediaSequence(at: now)
            let body = ByteBuffer(string: stream.playlist(at: now))
            let representation = Representation(
                etag: "\"live-\(stream.name)-\(sequence)\"",
                lastModified: HTTPDate.string(secondsSince1970: Int(Date().timeIntervalSince1970)),
                length: body.readableBytes,
                contentType: "application/vnd.apple.mpegurl"
            )
            return contentPlan(representation, source: .document(body), request: request, faults: faults, draw: .none)
        }

        guard
            let numberText = file.removingPrefix("seg").flatMap({ $0.hasSuffix(".ts") ? String($0.dropLast(3)) : nil }),
            let number = Int(numberText), number >= 0, number <= stream.newestSegment(at: now)
        else {
            // Not a segment, or one the stream has not produced yet.
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let segment = stream.segment(number)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: segment.path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else {
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let produced =
            stream.startedWallClock.timeIntervalSince1970
            + Double((number - stream.window + 1 - stream.skippedSlots) * stream.targetDuration)
        let representation = Representation(
            etag: "\"live-\(stream.name)-seg\(number)-\(size)\"",
            lastModified: HTTPDate.string(secondsSince1970: Int(produced)),
            length: size,
            contentType: "video/mp2t"
        )
        return contentPlan(
            representation, source: .file(path: segment.path), request: request, faults: faults, draw: .none)
    }
}
