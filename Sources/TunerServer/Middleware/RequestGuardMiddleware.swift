import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TunerApp

/// The server's access control, in front of every route. It fails closed: anything it cannot
/// classify is refused.
///
/// 1. The path is normalised (``RequestPath``); a path with dot segments, bad escapes or control
///    bytes is refused (400). Every later decision uses the normalised form.
/// 2. `Host` must be an IP literal, `localhost`, or a name the user configured (`--public-host`),
///    else 421: a web page that points its own name at 127.0.0.1 (DNS rebinding) reaches
///    nothing.
/// 3. When Tuner listens beyond loopback, every path needs the access token except an explicit
///    allow-list: signed stream URLs (`/stream/…`, the URL is the credential) and
///    `/api/v1/health`.
/// 4. A state-changing request (anything but GET, HEAD, OPTIONS) with an `Origin` must come from
///    the server's own origin or a configured one (403), and one with a body must say
///    `Content-Type: application/json` (or the tus type on the upload endpoint) (415): a web page
///    can send neither without the browser asking Tuner first (CORS), so no page can drive the
///    API behind the user's back, on loopback or not.
struct RequestGuardMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    /// The access token, or nil when Tuner listens on loopback only.
    let token: String?
    /// API keys and browser sessions.
    let access: AccessControl
    /// Host names (lower-case, no port) accepted besides IP literals and `localhost`.
    let publicHosts: Set<String>
    /// Origins (`scheme://host[:port]`) whose pages may change state; `*` allows any.
    let allowedOrigins: Set<String>
    /// Origins allowed on the tus upload endpoint only (its CORS setting).
    let uploadOrigins: Set<String>
    /// Limits wrong tokens and keys per address (shared with the other credential checks).
    var throttle = CredentialThrottle()
    /// The cluster this node is part of: its nodes' relay requests (`/internal/…`) carry its relay
    /// secret. Without one, `/internal/` does not exist.
    var cluster: TunerCluster?
    /// Proxies whose `X-Forwarded-For` names the client.
    var trustedProxies = TrustedProxies.none

    /// Paths that need no token: the stream URLs carry their own authentication.
    /// Outputs check their profile's key (OutputController) or the Xtream login (XtreamController)
    /// themselves: players cannot send a token.
    static let openPrefixes: [[String]] = [
        ["stream"], ["output"], ["play"], ["discover.json"], ["lineup.json"], ["lineup.xml"], ["lineup.m3u"],
        ["lineup_status.json"], ["lineup.post"], ["device.xml"], ["auto"], ["player_api.php"], ["get.php"],
        ["xmltv.php"], ["live"], ["movie"], ["series"], ["timeshift"],
        // The web app's code and styles: public, the same for everyone.
        ["assets"],
        // Logos uploaded for channels, named by their content's SHA-256 (nothing else is served
        // there): players fetch them from the outputs' URLs without a key, as they do provider logos.
        ["logos"],
    ]
    static let openPaths: Set<String> = ["/api/v1/health", sessionPath, "/login"]
    /// Signing in needs no credential; who is signed in (GET) and signing out (DELETE) read one.
    static let sessionPath = "/api/v1/session"
    static let uploadPrefix = ["api", "v1", "uploads"]
    /// Logos are sent as the image's bytes (`POST /api/v1/logos`).
    static let logoUploadPrefix = ["api", "v1", "logos"]
    static let logoUploadTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "application/octet-stream",
    ]
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// Node-to-node paths of a cluster (relays), never part of the API or its document.
    static let internalPrefix = ["internal"]

    /// `Host` values already accepted: clients send the same one on every request, and parsing
    /// it each time was a measurable part of a small cached answer.
    let acceptedHosts = AcceptedHosts()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path: RequestPath
        do {
            path = try RequestPath(normalising: request.uri.path)
        } catch {
            throw HTTPError(
                .badRequest,
                message:
                    """
                    the request path is not in a form Tuner accepts (\(error)): send a plain absolute path \
                    without '.' or '..' segments
                    """
            )
        }
        // HTTP/1.1's `Host` arrives as the request's authority; a second `Host` stays among the
        // fields, and RFC 9112 (3.2) says such a request gets 400: which one a rule judged would
        // otherwise depend on who reads it.
        if Self.hasSecondHost(request.headers) {
            throw HTTPError(.badRequest, message: "the request has more than one Host field: send one")
        }
        let host = request.head.authority
        if let host, !accepts(host: host) {
            throw HTTPError(
                .misdirectedRequest,
                message:
                    """
                    this Tuner does not answer to the host name in 'Host: \(Self.printable(host))': use its \
                    IP address or localhost, or start it with --public-host <name>
                    """
            )
        }
        // Every later rule and limit, and the answers, see the client behind a trusted proxy.
        var context = context
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        context.clientAddress =
            trustedProxies.isEmpty
            ? peer : trustedProxies.client(peer: peer, forwardedFor: request.headers[values: Self.forwardedFor])
        // The cluster's own paths: another node with the relay secret, or nobody (not even the
        // owner's token: they are no API).
        if path.starts(with: Self.internalPrefix) {
            guard request.method == .get, let cluster,
                cluster.acceptsRelay(request.headers[HTTPField.Name(TunerCluster.relayHeader)!])
            else {
                throw HTTPError(.notFound, message: "no such path")
            }
            return try await next(request, context)
        }
        // Whatever is checked from here on, ``letsThrough(_:path:)`` must say when it is not needed.
        if !isOpen(path) || path.text == Self.sessionPath {
            context.principal = try await authenticate(
                request, path: path, address: context.clientAddress ?? peer)
            if let principal = context.principal, case let needed = AccessRule.scope(for: request.method, path: path),
                principal.scope < needed
            {
                throw HTTPError(
                    .forbidden,
                    message: """
                        the key '\(Self.printable(principal.name))' may \(principal.scope.rawValue) only; this needs \
                        \(needed.rawValue): use a key with that scope (`tuner keys add NAME --scope \(needed.rawValue)`)
                        """)
            }
        }
        // A WebSocket upgrade is a GET a page may send anywhere: its Origin is checked like a change's.
        if !Self.isSafe(request.method) || request.headers[.upgrade] != nil {
            try checkCrossSite(request, path: path, host: host)
        }
        return try await next(request, context)
    }

    /// Whether a `Host` value is one the server answers to (remembered once it is).
    func accepts(host: String) -> Bool {
        if acceptedHosts.contains(host) { return true }
        guard HostRule.accepts(host, publicHosts: publicHosts) else { return false }
        acceptedHosts.remember(host)
        return true
    }

    /// Whether ``handle(_:context:next:)`` passes `request` on as it is, with no principal and no
    /// other check: one accepted `Host` (or none), a path open without a credential (not the
    /// session's), a safe method and no upgrade. `path` is the request's normalised path. The
    /// stream fast path answers only such requests; anything else goes through the guard.
    func letsThrough(_ request: HTTPRequest, path: RequestPath) -> Bool {
        Self.isSafe(request.method) && request.headerFields[.upgrade] == nil
            && !Self.hasSecondHost(request.headerFields)
            && letsThroughSafeRequest(host: request.authority, path: path)
    }

    /// Whether a request's fields still hold a `Host`: the first became its authority, so this is
    /// a second one.
    static func hasSecondHost(_ fields: HTTPFields) -> Bool {
        fields.contains { $0.name.canonicalName == "host" }
    }

    /// ``letsThrough(_:path:)`` for a request already known to use a safe method and to ask for
    /// no upgrade: an accepted `Host` (or none) and a path open without a credential.
    func letsThroughSafeRequest(host: String?, path: RequestPath) -> Bool {
        acceptsHost(host) && letsThroughSafePath(path)
    }

    /// The `Host` part of ``letsThroughSafeRequest(host:path:)``: an accepted `Host`, or none.
    func acceptsHost(_ host: String?) -> Bool {
        host.map(accepts(host:)) ?? true
    }

    /// The path part of ``letsThroughSafeRequest(host:path:)``: open without a credential, and
    /// not the session's. It depends on the path alone, so a verdict may be kept per path.
    func letsThroughSafePath(_ path: RequestPath) -> Bool {
        isOpen(path) && path.text != Self.sessionPath
    }

    /// Who the request acts as: the owner's token or an API key (`Authorization: Bearer`, or
    /// `?token=`), else a signed-in browser's session cookie, else the owner when Tuner listens on
    /// loopback only (any local program may act; a credential there only narrows it). Beyond
    /// loopback, nobody: 401 (a page asked for by a browser is sent to the sign-in page instead).
    ///
    /// Where a wrong credential is refused (beyond loopback), each try goes through ``throttle``:
    /// an address with too many wrong ones in its window gets 429 with `Retry-After` at once.
    func authenticate(_ request: Request, path: RequestPath, address: String) async throws -> AccessPrincipal? {
        if let supplied = Self.suppliedToken(request) {
            if token != nil, !isOpen(path) {
                let ticket: CredentialThrottle.Machine.Ticket
                switch throttle.admit(address: address) {
                case .refused(let wait):
                    throw Self.throttled(wait).httpError
                case .admitted(let admitted):
                    ticket = admitted
                }
                let found: AccessPrincipal?
                do {
                    found = try await access.principal(bearer: supplied)
                } catch {
                    // Not judged (the database is away: 503): the try does not count against the address.
                    throttle.succeeded(ticket)
                    throw error
                }
                if let principal = found {
                    throttle.succeeded(ticket)
                    return principal
                }
                _ = throttle.failed(ticket)
                throw HTTPError(
                    .unauthorized,
                    message: """
                        the token or API key sent is not valid here (a removed key, or a typing error): send the \
                        access token (the data folder's 'token' file or TUNER_TOKEN) or a key from `tuner keys add`
                        """)
            }
            // On loopback only (or on an open path) a credential only narrows who acts.
            if let principal = try await access.principal(bearer: supplied) { return principal }
        }
        if let cookie = request.cookies[AccessControl.sessionCookie]?.value,
            let principal = try await access.principal(session: cookie)
        {
            return principal
        }
        if token == nil { return .owner }
        if isOpen(path) { return nil }
        if Self.isSafe(request.method), !path.starts(with: ["api"]),
            request.headers[.accept]?.contains("text/html") == true
        {
            throw HTTPError(.seeOther, headers: [.location: "/login?next=" + Self.nextParameter(request.uri.path)])
        }
        throw HTTPError(
            .unauthorized,
            message: """
                this Tuner listens beyond localhost: send 'Authorization: Bearer <token>' (the token is in \
                the data folder's 'token' file or TUNER_TOKEN) or an API key, or sign in at /login
                """)
    }

    /// The answer to an address that sent too many wrong credentials: 429 with `Retry-After`.
    static func throttled(_ wait: Duration) -> FeatureError {
        FeatureError(
            .tooManyRequests, "too many wrong tokens or keys from this address: wait before trying again",
            retryAfterSeconds: CredentialThrottle.retryAfterSeconds(wait))
    }

    /// A local path for the sign-in page to return to: only `/` and unreserved characters, so it
    /// can never point at another site.
    static func nextParameter(_ path: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-_.~")
        let clean = String(path.prefix(200).filter { allowed.contains($0) })
        return clean.hasPrefix("/") && !clean.hasPrefix("//") ? clean : "/"
    }

    func isOpen(_ path: RequestPath) -> Bool {
        Self.openPaths.contains(path.text) || Self.openPrefixes.contains { path.starts(with: $0) }
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// The CSRF rules for a state-changing request.
    func checkCrossSite(_ request: Request, path: RequestPath, host: String?) throws {
        let isUpload = path.starts(with: Self.uploadPrefix)
        if let origin = request.headers[.origin] {
            let normalised = origin.lowercased()
            let own = host.map { ["http://" + $0.lowercased(), "https://" + $0.lowercased()] } ?? []
            // A WebSocket client library names the socket's own URL (`ws://host`): no web page has
            // such an origin (a page's is http, https or opaque), so it is not a browser's request.
            let nativeSocket =
                request.headers[.upgrade] != nil && (normalised.hasPrefix("ws://") || normalised.hasPrefix("wss://"))
            let allowed =
                own.contains(normalised) || allowedOrigins.contains("*") || allowedOrigins.contains(normalised)
                || (isUpload && (uploadOrigins.contains("*") || uploadOrigins.contains(normalised))) || nativeSocket
            guard allowed else {
                throw HTTPError(
                    .forbidden,
                    message:
                        """
                        requests from the web page at '\(Self.printable(origin))' may not change anything here: \
                        start Tuner with --allow-origin \(Self.printable(origin)) to allow that page
                        """
                )
            }
        }
        guard Self.hasBody(request) else { return }
        let type =
            request.headers[.contentType].map {
                $0.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        // Every type taken is one a cross-site page cannot send without a CORS preflight (which
        // Tuner never approves): not text/plain, a form's, or multipart.
        let isLogo = path.starts(with: Self.logoUploadPrefix)
        let accepted =
            type == "application/json" || (isUpload && type == "application/offset+octet-stream")
            || (isLogo && Self.logoUploadTypes.contains(type))
        guard accepted else {
            let expected =
                isUpload
                ? "application/offset+octet-stream"
                : isLogo ? Self.logoUploadTypes.sorted().joined(separator: "' or '") : "application/json"
            throw HTTPError(
                .unsupportedMediaType,
                message:
                    "a request body here must be sent with 'Content-Type: \(expected)', got '\(Self.printable(type))'")
        }
    }

    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        guard let length = request.headers[.contentLength] else { return false }
        // An unreadable length is treated as a body: the stricter reading.
        return length.trimmingCharacters(in: .whitespaces) != "0"
    }

    /// The secret a request presents: `Authorization: Bearer <secret>`, else `?token=`.
    static func suppliedToken(_ request: Request) -> String? {
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        return bearer ?? request.uri.queryParameters["token"].map(String.init)
    }

    static func carriesToken(_ request: Request, token: String) -> Bool {
        guard let supplied = suppliedToken(request) else { return false }
        return AccessControl.constantTimeEquals(supplied, token)
    }

    /// A header value safe to repeat in an error message: short, printable ASCII.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).filter { $0.value >= 0x20 && $0.value < 0x7F }))
    }
}

/// A bounded memo of `Host` values ``HostRule`` accepted. Only accepted values enter, so a
/// refused one is parsed (and refused) every time; the set is emptied when full, so a client
/// cycling through names costs memory for at most `capacity` of them.
final class AcceptedHosts: Sendable {
    private let hosts = Mutex<Set<String>>([])
    let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func contains(_ host: String) -> Bool {
        hosts.withLock { $0.contains(host) }
    }

    func remember(_ host: String) {
        hosts.withLock { hosts in
            guard !hosts.contains(host) else { return }
            if hosts.count >= capacity { hosts.removeAll(keepingCapacity: true) }
            hosts.insert(host)
        }
    }
}

/// Which `Host` values the server answers to.
enum HostRule {
    /// An IP literal (v4 or v6, any address) always; a name only when it is `localhost` or
    /// configured. Plex or a TV reaching `http://192.168.1.10:8080` keeps working; DNS rebinding,
    /// which needs a name, does not.
    static func accepts(_ authority: String, publicHosts: Set<String>) -> Bool {
        guard let name = hostName(of: authority) else { return false }
        if isIPLiteral(name) { return true }
        var lowered = name.lowercased()
        if lowered.hasSuffix(".") { lowered.removeLast() }
        return lowered == "localhost" || publicHosts.contains(lowered)
    }

    /// The host part of an authority (`name:port`, `[v6]:port`), or nil when it is malformed.
    static func hostName(of authority: String) -> String? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let inside = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return isIPv6(String(inside)) ? String(inside) : nil
        }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty else { return nil }
        if parts.count == 2, !parts[1].allSatisfy(\.isASCIIDigit) { return nil }
        return String(host)
    }

    static func isIPLiteral(_ name: String) -> Bool {
        isIPv4(name) || isIPv6(name)
    }

    /// Dotted-quad IPv4 only: `inet_aton`'s shorter forms (`127.1`, `0x7f.1`) are names to a
    /// browser's resolver and must not count as literals.
    static func isIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255
        }
    }

    static func isIPv6(_ name: String) -> Bool {
        // Hex digits and colons (with an optional embedded IPv4 tail); a zone id is not allowed in Host.
        guard name.contains(":"), name.count <= 45 else { return false }
        let allowed = Set("0123456789abcdefABCDEF:.")
        guard name.allSatisfy({ allowed.contains($0) }) else { return false }
        let groups = name.components(separatedBy: "::")
        guard groups.count <= 2 else { return false }
        return name.split(separator: ":", omittingEmptySubsequences: true).allSatisfy { group in
            group.count <= 4 || isIPv4(String(group))
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
