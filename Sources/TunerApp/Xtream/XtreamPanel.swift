import Foundation
import Logging
import Outputs

/// The Xtream Codes output as a feature object, for players that take only a login (TiviMate,
/// IPTV Smarters): logins checked through the ``CredentialThrottle``, the `player_api.php` actions
/// answering typed values, the `get.php` playlist and the guide, and what a stream path plays.
/// The server's controller decodes a request, calls one method and encodes the answer.
///
/// Logins are output users (`/api/v1/users`), never a provider's account. The throttle limits
/// tries per address (refused at once, without a hash) and slows a username's wrong answers;
/// hashes run on the outputs' fair pool.
public final class XtreamPanel: Sendable {
    let outputs: OutputCenter
    let throttle: CredentialThrottle
    let logger: Logger
    /// The live streams a login has open in the live engine (part of the panel's `active_cons`).
    let liveStreams: @Sendable (_ username: String) -> Int
    /// Films and episodes open per login, counted while their bytes flow.
    public let open = XtreamOpenStreams()
    /// The DVR whose finished recordings every login sees in a "Recordings" category.
    let dvr: DVR?

    public init(
        outputs: OutputCenter, throttle: CredentialThrottle, logger: Logger, dvr: DVR? = nil,
        liveStreams: @escaping @Sendable (_ username: String) -> Int
    ) {
        self.dvr = dvr
        self.outputs = outputs
        self.throttle = throttle
        self.logger = logger
        self.liveStreams = liveStreams
    }

    /// What a login attempt came to.
    public enum Login: Sendable {
        case user(OutputUser)
        /// A wrong name or password (already counted, and waited for when its name is guessed at).
        case wrong
        /// Refused without checking: the address failed too often; it may retry after this.
        case throttled(Duration)
    }

    /// Checks a login through the throttle: a throttled address is refused at once, without a
    /// hash; a wrong password waits its username's delay. `address` is the caller's (no port).
    public func login(_ username: String?, _ password: String?, address: String) async throws -> Login {
        let ticket: CredentialThrottle.Machine.Ticket
        switch throttle.admit(address: address, username: username) {
        case .refused(let retryAfter):
            return .throttled(retryAfter)
        case .admitted(let admitted):
            ticket = admitted
        }
        if let username, let password,
            let user = try await outputs.login(username, password: password, client: address)
        {
            throttle.succeeded(ticket)
            return .user(user)
        }
        let delay = throttle.failed(ticket)
        logger.warning("Xtream login refused", metadata: ["address": "\(address)"])
        if delay > .zero { try await Task.sleep(for: delay) }
        return .wrong
    }

    /// The login for the paths other than `player_api.php`: `unauthenticated` when wrong,
    /// `tooManyRequests` when throttled, `forbidden` when disabled or expired.
    public func requireLogin(_ username: String?, _ password: String?, address: String) async throws -> OutputUser {
        switch try await login(username, password, address: address) {
        case .user(let user):
            guard !user.isDisabled else { throw Self.disabled }
            guard !user.isExpired(at: Int64(Date().timeIntervalSince1970)) else { throw Self.expired }
            return user
        case .wrong:
            throw Self.wrongLogin
        case .throttled(let wait):
            throw Self.throttled(wait)
        }
    }

    /// The answer to a wrong name or password.
    static let wrongLogin = FeatureError(.unauthenticated, "wrong username or password")

    /// The answer to an expired login (after the right password): its account still answers.
    static let expired = FeatureError(.forbidden, "this login has expired")
    static let disabled = FeatureError(.forbidden, "this login is disabled")

    /// The answer to a throttled address: 429 with `Retry-After`.
    static func throttled(_ wait: Duration) -> FeatureError {
        FeatureError(
            .tooManyRequests, "too many wrong logins from this address: wait before trying again",
            retryAfterSeconds: CredentialThrottle.retryAfterSeconds(wait))
    }
}
