import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TunerTesting's `posix_spawn` runner, which every end-to-end test uses to start programs.
@Suite struct ChildProcessTests {
    @Test func exitStatusOutputAndSignalsAreReported() async throws {
        let ok = try await ExternalCommand.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(ok.status == 3 && !ok.signaled && !ok.timedOut)
        #expect(ok.output == "out\n")
        #expect(ok.errorOutput == "err\n")

        let killed = try await ExternalCommand.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(killed.signaled && killed.status == SIGTERM, "\(killed.transcript)")

        let slow = try await ExternalCommand.run("/bin/sleep", ["30"], timeout: .milliseconds(200))
        #expect(slow.timedOut && slow.signaled && slow.status == SIGKILL)

        let inFolder = try await ExternalCommand.run("/bin/pwd", [], currentDirectory: "/usr")
        #expect(inFolder.output == "/usr\n")

        await #expect(throws: ExternalCommandError.self) { try await ExternalCommand.run("no-such-program-here", []) }
    }

    /// Foundation's `Process.run()` crashed in a test process holding over a thousand descriptors;
    /// this runner must start children then too, and none of those descriptors may leak into them.
    @Test func manyOpenDescriptorsNeitherBreakSpawningNorLeakIntoTheChild() async throws {
        var limit = rlimit()
        #if canImport(Glibc)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
            getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        let count = min(1500, Int(limit.rlim_cur) - 400)
        try #require(count > 100, "the descriptor limit (\(limit.rlim_cur)) is too low for this test")
        // Opened without O_CLOEXEC on purpose: only the runner's close step keeps them from the child.
        let descriptors = (0..<count).map { _ in open("/dev/null", O_RDONLY) }
        defer { descriptors.filter { $0 >= 0 }.forEach { close($0) } }
        #expect(descriptors.allSatisfy { $0 >= 0 })
        let highest = descriptors.max() ?? 0

        let listing = try await ExternalCommand.run("/bin/sh", ["-c", "ls /proc/self/fd 2>/dev/null || ls /dev/fd"])
        #expect(listing.succeeded, "\(listing.transcript)")
        let inherited = listing.output.split(separator: "\n").compactMap { Int32($0) }.filter { $0 > 2 }
        // `ls` itself holds one descriptor for the directory it lists.
        #expect(inherited.count <= 1, "the child inherited \(inherited.count) descriptors: \(inherited.prefix(20))…")
        #expect(!inherited.contains(highest))
    }
}
