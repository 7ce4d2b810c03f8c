import Catalog
import HTTPTypes
import Hummingbird
import Outputs
import Testing
import Transfers
import TunerApp
import TunerStorage
import TusServer

@testable import TunerServer

/// The one mapping from an error to its HTTP answer (`FeatureError+HTTP.swift`, applied by
/// `RedactingErrorMiddleware`): each kind's status, `Retry-After` and `WWW-Authenticate` when the
/// error carries them, and each service's error through its feature error.
@Suite struct FeatureErrorHTTPTests {
    @Test func eachKindAnswersWithItsStatus() {
        let statuses: [(FeatureError.Kind, HTTPResponse.Status)] = [
            (.notFound, .notFound), (.notPlayable, .conflict), (.invalid, .badRequest), (.forbidden, .forbidden),
            (.conflict, .conflict), (.upstream, .badGateway), (.failed, .internalServerError),
            (.busy, .serviceUnavailable), (.unauthenticated, .unauthorized), (.tooManyRequests, .tooManyRequests),
            (.unavailable, .serviceUnavailable),
        ]
        for (kind, status) in statuses {
            let answer = FeatureError(kind, "why").httpError
            #expect(answer.status == status, "\(kind)")
            #expect(answer.body == "why")
        }
    }

    @Test func retryAfterAndChallengeBecomeHeaders() {
        let busy = FeatureError(.busy, "every connection is in use").httpError
        #expect(busy.headers[.retryAfter] == String(FeatureError.busyRetrySeconds))
        let notStarted = FeatureError(.busy, "did not start", retryAfterSeconds: nil).httpError
        #expect(notStarted.status == .serviceUnavailable && notStarted.headers.isEmpty)
        let throttled = FeatureError(.tooManyRequests, "wait", retryAfterSeconds: 7).httpError
        #expect(throttled.headers[.retryAfter] == "7")
        let plain = FeatureError(.unauthenticated, "wrong username or password").httpError
        #expect(plain.headers.isEmpty)
        let challenged = FeatureError(.unauthenticated, "sign in", retryAfterSeconds: nil, challenge: "Bearer")
        #expect(challenged.httpError.headers[.wwwAuthenticate] == "Bearer")
    }

    @Test func servicesErrorsAnswerThroughTheirFeatureError() {
        func status(_ error: any Error) -> HTTPResponse.Status? { FeatureError(answering: error)?.httpStatus }
        #expect(status(CatalogError.itemNotFound(3)) == .notFound)
        #expect(status(CatalogError.notFavourite(3)) == .conflict)
        #expect(status(CatalogError.emptyImport) == .badGateway)
        #expect(status(OutputError(.conflict, "exists")) == .conflict)
        #expect(status(OutputError(.invalid, "bad")) == .badRequest)
        #expect(status(TransferError.noTask(9)) == .notFound)
        #expect(status(TransferError.invalidRequest("no url")) == .badRequest)
        #expect(status(TusUploadStoreError(.notFound, "no upload")) == .notFound)
        #expect(status(TusUploadStoreError(.storage, "disk")) == .internalServerError)
        #expect(status(CancellationError()) == nil)
        #expect(FeatureError(answering: CatalogError.itemNotFound(3))?.description == "no catalog item has id 3")
    }

    @Test func aLostDatabaseAnswers503WithRetryAfterAndNoAddress() {
        let lost = StorageUnavailableError(address: "postgres://tuner@db.lan:5432/tuner", reason: "connectionError")
        let answer = FeatureError(answering: lost)
        #expect(answer?.kind == .unavailable)
        #expect(answer?.httpError.status == .serviceUnavailable)
        #expect(answer?.httpError.headers[.retryAfter] == "5")
        #expect(answer?.description.contains("db.lan") == false, "a public answer names no database")
        // A failure a feature wraps (a profile looked up, a catalog read) stays a lost database.
        #expect(FeatureError(.notFound, "no profile 'x'", cause: lost).kind == .unavailable)
        #expect(FeatureError(.failed, "cannot read", cause: FeatureError(lost)).httpStatus == .serviceUnavailable)
        #expect(FeatureError(.notFound, "no profile 'x'", cause: OutputError(.notFound, "x")).kind == .notFound)
    }
}
