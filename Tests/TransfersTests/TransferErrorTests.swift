import Foundation
import Testing

@testable import Transfers

/// The one error type of Transfers: its class follows from kind and status, and its text says
/// where a step failed while a plain failure reads as its reason alone.
@Suite struct TransferErrorTests {
    @Test func theClassFollowsFromTheKindAndTheStatus() {
        #expect(TransferError(.transport, "reset").errorClass == .transient)
        #expect(TransferError(.stalled, "quiet").errorClass == .transient)
        #expect(TransferError(.lengthMismatch, "short").errorClass == .transient)
        #expect(TransferError(.invalidPlaylist, "junk").errorClass == .permanent)
        #expect(TransferError(.httpStatus, status: 503, "busy").errorClass == .transient)
        #expect(TransferError(.httpStatus, status: 403, "expired").errorClass == .needsNewURL)
        #expect(TransferError(.httpStatus, status: 404, "gone").errorClass == .permanent)
        #expect(TransferError(.protocolViolation, errorClass: .transient, "told").errorClass == .transient)
        // A tus server's 409 means the offset moved: the client resynchronises, so it is transient.
        #expect(TransferErrorClass(status: 409) == .transient)
        #expect(TransferErrorClass(status: 416) == .permanent)
    }

    @Test func aFailingStepSaysWhereAndAPlainFailureSaysItsReason() {
        let segment = TransferError.hls(
            .httpStatus, url: URL(string: "http://origin.test/v/seg7.ts"), segmentIndex: 7, httpStatus: 401,
            attempts: 3, "the segment request was answered with HTTP 401")
        #expect(segment.errorClass == .needsNewURL)
        #expect(segment.operation == .hlsDownload)
        #expect(segment.description.contains("segment 7"))
        #expect(segment.description.contains("http://origin.test/v/seg7.ts"))
        #expect(segment.description.contains("after 3 tries"))
        #expect(segment.description.hasSuffix("give the task a new URL"))

        let plain = TransferError.transient("connection reset", retryAfter: 5)
        #expect(plain.description == "connection reset")
        #expect(plain.kind == .other && plain.retryAfter == 5)
        #expect(TransferError.classify(POSIXError(.ENOSPC)).kind == .fileSystem)
        #expect(TransferError.classify(POSIXError(.ECONNRESET)).kind == .transport)
    }
}
