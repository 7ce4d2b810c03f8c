import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, its output sent straight to files.
///
/// Why not Foundation's `Process`: on Linux it adds one close action per descriptor up to the
/// highest one open and watches each child through a CFSocket, and in a test process holding well
/// over a thousand descriptors (servers, origins and clients in parallel suites) it crashed inside
/// `run()`. Here the child closes everything above stderr in one `closefrom` step (glibc 2.34+;
/// elsewhere every descriptor the tests open is close-on-exec anyway), and one thread per child
/// waits for it with `waitpid`.
public final class ChildProcess: Sendable {
    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// Discarded (`/dev/null`).
        case discard
        /// Written to this file, created or truncated.
        case file(String)
    }

    /// How the child ended.
    public struct Termination: Sendable {
        /// The exit status, or the signal number when `signaled`.
        public var status: Int32
        public var signaled: Bool
    }

    public let processIdentifier: Int32
    /// How the child ended (nil while it runs), and who waits for that.
    private let state = LockedState<(ended: Termination?, waiters: [CheckedContinuation<Termination, Never>])>(
        (nil, []))

    /// Starts `executable` (a full path) with `arguments`. `environment` nil inherits this
    /// process's environment.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, standardOutput: Output = .discard, standardError: Output = .discard
    ) throws {
        var actions = try SpawnFileActions()
        defer { actions.destroy() }
        try actions.open(STDIN_FILENO, "/dev/null", O_RDONLY)
        try actions.redirect(STDOUT_FILENO, standardOutput)
        try actions.redirect(STDERR_FILENO, standardError)
        if let currentDirectory { try actions.changeDirectory(currentDirectory) }
        actions.closeEverythingAboveStandardError()

        var attributes = try SpawnAttributes()
        defer { attributes.destroy() }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables =
            (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions.raw, &attributes.raw, argv, variables)
        guard result == 0 else {
            throw ChildProcessError(what: "cannot start \(executable)", code: result)
        }
        processIdentifier = pid
        let child = pid
        let state = self.state
        // A plain thread, not the cooperative pool: waitpid blocks until the child ends.
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let termination = Self.termination(from: status)
            let waiters = state.withLock { state in
                state.ended = termination
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters {
                waiter.resume(returning: termination)
            }
        }
        thread.stackSize = 64 << 10
        thread.start()
    }

    /// True until the child has ended and been reaped.
    public var isRunning: Bool { state.withLock { $0.ended == nil } }

    /// How the child ended, or nil while it runs.
    public var termination: Termination? { state.withLock { $0.ended } }

    /// Waits (without blocking a thread) for the child to end.
    public func wait() async -> Termination {
        await withCheckedContinuation { continuation in
            let done: Termination? = state.withLock { state in
                if let ended = state.ended { return ended }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Sends `signal` unless the child has already been reaped (its pid may be reused then).
    public func send(_ signal: Int32) {
        state.withLock { state in
            if state.ended == nil { kill(processIdentifier, signal) }
        }
    }

    private static func termination(from status: Int32) -> Termination {
        // The <sys/wait.h> macros are not imported into Swift: low 7 bits are the signal, 0 on exit.
        let signal = status & 0x7f
        if signal == 0 { return Termination(status: (status >> 8) & 0xff, signaled: false) }
        return Termination(status: signal, signaled: true)
    }
}

/// Why a child could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var what: String
    public var code: Int32
    public var description: String { "\(what): \(String(cString: strerror(code)))" }
}

/// `posix_spawn_file_actions_t`, whose Swift type differs between Glibc and Darwin.
private struct SpawnFileActions {
    #if canImport(Darwin)
        var raw: posix_spawn_file_actions_t? = nil
    #else
        var raw = posix_spawn_file_actions_t()
    #endif

    init() throws {
        let result = posix_spawn_file_actions_init(&raw)
        guard result == 0 else { throw ChildProcessError(what: "posix_spawn_file_actions_init", code: result) }
    }

    mutating func destroy() { posix_spawn_file_actions_destroy(&raw) }

    mutating func open(_ descriptor: Int32, _ path: String, _ flags: Int32, mode: mode_t = 0o644) throws {
        let result = posix_spawn_file_actions_addopen(&raw, descriptor, path, flags, mode)
        guard result == 0 else { throw ChildProcessError(what: "cannot redirect to \(path)", code: result) }
    }

    mutating func redirect(_ descriptor: Int32, _ output: ChildProcess.Output) throws {
        switch output {
        case .discard: try open(descriptor, "/dev/null", O_WRONLY)
        case .file(let path): try open(descriptor, path, O_WRONLY | O_CREAT | O_TRUNC)
        }
    }

    mutating func changeDirectory(_ path: String) throws {
        #if canImport(Darwin)
            let result = posix_spawn_file_actions_addchdir_np(&raw, path)
        #else
            let result = Self.addChangeDirectory.map { $0(&raw, path) } ?? ENOSYS
        #endif
        guard result == 0 else { throw ChildProcessError(what: "cannot start in \(path)", code: result) }
    }

    mutating func closeEverythingAboveStandardError() {
        #if !canImport(Darwin)
            _ = Self.addCloseFrom.map { $0(&raw, STDERR_FILENO + 1) }
        #endif
    }

    #if !canImport(Darwin)
        // glibc has both (2.29 and 2.34), but its headers only declare them under _GNU_SOURCE, which
        // Swift's Glibc module does not set; look them up at run time instead.
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private typealias ChangeDirectory =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        private static let addCloseFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
        private static let addChangeDirectory: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

        private static func symbol<T>(_ name: String) -> T? {
            // A null handle is glibc's RTLD_DEFAULT: every loaded object, libc included.
            guard let address = dlsym(nil, name) else { return nil }
            return unsafeBitCast(address, to: T.self)
        }
    #endif
}

/// `posix_spawnattr_t`: the child gets its own process group (a Ctrl-C at the terminal goes to
/// the test runner, which kills its children itself) and default signal handling.
private struct SpawnAttributes {
    #if canImport(Darwin)
        var raw: posix_spawnattr_t? = nil
    #else
        var raw = posix_spawnattr_t()
    #endif

    init() throws {
        var result = posix_spawnattr_init(&raw)
        guard result == 0 else { throw ChildProcessError(what: "posix_spawnattr_init", code: result) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&raw, &defaults)
        posix_spawnattr_setsigmask(&raw, &mask)
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        result = posix_spawnattr_setflags(&raw, Int16(flags))
        guard result == 0 else { throw ChildProcessError(what: "posix_spawnattr_setflags", code: result) }
    }

    mutating func destroy() { posix_spawnattr_destroy(&raw) }
}
