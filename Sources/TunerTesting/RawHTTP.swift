import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends byte-exact HTTP/1.1 requests over a plain socket to 127.0.0.1, for tests of what
/// ordinary clients would tidy up first: paths like `//api` or `/%2e%2e/`, odd `Host` values,
/// oversized or endless headers.
public enum RawHTTP {
    /// What came back: the status (0 when the connection closed without an answer), the head
    /// and the body as text, and every byte received.
    public struct Answer: Sendable {
        public var status: Int
        public var head: String
        public var body: String
        public var bytes: [UInt8]
    }

    /// Sends `request` (already terminated by a blank line, plus any body) and reads until the
    /// server closes the connection or `timeoutSeconds` pass without a byte. Use
    /// `Connection: close` in the request so the server closes after answering.
    /// The default timeout is long: a loaded CI machine running every suite at once can take
    /// seconds to answer, and a test that expects an answer must not read a slow one as none.
    public static func send(port: Int, _ request: [UInt8], timeoutSeconds: Int = 30) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: the blocking reads must not hold Dispatch's few pool threads,
            // which other tests' work waits for.
            Thread {
                continuation.resume(
                    with: Result { try sendBlocking(port: port, request, timeoutSeconds: timeoutSeconds) })
            }.start()
        }
    }

    /// `send` with a request given as text (`\r\n` line ends are the caller's).
    public static func send(port: Int, _ request: String, timeoutSeconds: Int = 30) async throws -> Answer {
        try await send(port: port, Array(request.utf8), timeoutSeconds: timeoutSeconds)
    }

    /// A GET with the given raw target, `Host` and extra header lines, and `Connection: close`.
    public static func get(
        port: Int, target: String, method: String = "GET", host: String? = nil, headers: [String] = [],
        body: String = ""
    ) async throws -> Answer {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        lines += headers
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            lines.append("Content-Length: \(body.utf8.count)")
        }
        return try await send(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n" + body)
    }

    /// Opens a connection to 127.0.0.1:`port` and returns its descriptor (the caller closes it).
    public static func connect(port: Int, timeoutSeconds: Int = 10) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .ECONNREFUSED)
        }
        return fd
    }

    /// Writes all of `bytes`; false when the peer closed or reset the connection first.
    @discardableResult
    public static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Runs blocking socket work (``readAll(_:)``, a read of an answer) on a thread of its own
    /// and waits for it. A test's blocking read must not hold one of the concurrency pool's
    /// threads (as many as the cores): every other test running meanwhile waits for them, and on
    /// a 2-core machine two such reads stop them all (a download "stalls", a deadline passes).
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// Reads until the peer closes, an error, or the receive timeout. Blocking: from async code,
    /// call it through ``offPool(_:)``.
    public static func readAll(_ fd: Int32) -> [UInt8] {
        readUntilClosed(fd).bytes
    }

    /// Reads until the connection ends and says who ended it: `closedByPeer` is true when the
    /// server closed or reset it, false when this client's receive timeout passed first (or
    /// another error). Tells "the server closed the connection" apart from "it went quiet"
    /// without asserting on how long either took. Blocking: call it through ``offPool(_:)``.
    public static func readUntilClosed(_ fd: Int32) -> (bytes: [UInt8], closedByPeer: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return (received, count == 0 || errno == ECONNRESET)
        }
    }

    static func sendBlocking(port: Int, _ request: [UInt8], timeoutSeconds: Int) throws -> Answer {
        let fd = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        // A server may answer and close before it has read everything (a refused huge header):
        // what it answered still counts, so a failed write is not an error here.
        write(fd, request)
        return parse(readAll(fd))
    }

    static func parse(_ bytes: [UInt8]) -> Answer {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let fields = statusLine.split(separator: " ")
        let status = fields.count >= 2 && statusLine.hasPrefix("HTTP/") ? Int(fields[1]) ?? 0 : 0
        return Answer(status: status, head: head, body: body, bytes: bytes)
    }
}
