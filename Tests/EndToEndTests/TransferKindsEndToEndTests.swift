import Crypto
import Foundation
import Testing
import TunerTesting

/// The other transfer kinds through the real binary: an HLS VOD downloaded and played offline,
/// a tus upload from the CLI to Tuner's own endpoint, and a plain PUT.
@Suite struct TransferKindsEndToEndTests {
    static func md5OfDecoded(_ ffmpeg: String, _ input: String) async throws -> String {
        let result = try await ExternalCommand.run(
            ffmpeg, ["-v", "error", "-allowed_extensions", "ALL", "-i", input, "-map", "0:v", "-f", "md5", "-"])
        #expect(result.succeeded, "\(result.transcript)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anEncryptedHLSDownloadPlaysOfflineLikeTheOriginal() async throws {
        guard let tools = Tools.require(.ffmpeg) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let fixtures = try await HLSFixtures.shared()
        let origin = try await TestOrigin.start()
        origin.serveDirectory(fixtures.directory)
        let url = origin.baseURL + fixtures.encrypted.staticPath
        let expected = try await Self.md5OfDecoded(tools[.ffmpeg], url)
        let data = workspace.file("data")

        let download = try await TunerProcess.run(["download", "--hls", url, "--wait", "--data", data])
        #expect(download.succeeded, "\(download.transcript)")
        try await origin.shutdown()
        let folder = data + "/downloads/aes"
        #expect(FileManager.default.fileExists(atPath: folder + "/index.m3u8"), "\(download.output)")
        #expect(
            !FileManager.default.fileExists(atPath: folder + ".partial"), "the partial folder was renamed into place")
        #expect(
            try await Self.md5OfDecoded(tools[.ffmpeg], folder + "/index.m3u8") == expected,
            "offline playback decodes the same frames")

        let list = try await TunerProcess.run(["transfers", "list", "--data", data])
        #expect(list.succeeded && list.output.contains("complete"), "\(list.transcript)")
    }

    /// A master playlist whose variant plays its sound from a separate audio rendition: `tuner
    /// download --hls … --wait` fetches both, and with the origin gone the folder's `index.m3u8`
    /// has a video and an audio stream and decodes to exactly what the origin's master decodes to.
    @Test func anHLSDownloadWithASeparateAudioRenditionPlaysOfflineWithSound() async throws {
        guard let tools = Tools.require(.ffmpeg, .ffprobe) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let fixtures = try await HLSFixtures.shared()
        let origin = try await TestOrigin.start()
        origin.serveDirectory(fixtures.directory)
        let url = origin.baseURL + fixtures.separateAudio.staticPath
        func decoded(_ input: String) async throws -> String {
            let result = try await ExternalCommand.run(
                tools[.ffmpeg],
                ["-v", "error", "-allowed_extensions", "ALL", "-i", input, "-map", "0", "-f", "md5", "-"])
            #expect(result.succeeded, "\(result.transcript)")
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let expected = try await decoded(url)
        let data = workspace.file("data")

        let download = try await TunerProcess.run(["download", "--hls", url, "--out", "film", "--wait", "--data", data])
        #expect(download.succeeded, "\(download.transcript)")
        try await origin.shutdown()
        let playlist = data + "/downloads/film/index.m3u8"
        let probe = try await ExternalCommand.run(
            tools[.ffprobe], ["-v", "error", "-show_entries", "stream=index,codec_type", "-of", "csv=p=0", playlist])
        let streams = Set(probe.output.split(whereSeparator: \.isNewline).map(String.init))
        #expect(streams == ["0,audio", "1,video"], "\(probe.transcript)")
        #expect(try await decoded(playlist) == expected, "offline playback decodes the same video and sound")
    }

    @Test func aTusUploadFromTheCommandLineArrivesWhole() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        var bytes = [UInt8](repeating: 0, count: 3 << 20)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
        let file = workspace.file("holiday.mp4")
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let expected = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()

        // The receiving Tuner, and a second data folder whose CLI runs the upload in-process.
        let receiver = try await TunerProcess.serve(data: workspace.file("receiver"))
        let upload = try await TunerProcess.run([
            "upload", file, "--to", receiver.baseURL + "/api/v1/uploads", "--tus", "--wait", "--data",
            workspace.file("sender"),
        ])
        #expect(upload.succeeded, "\(upload.transcript)")
        let uploads = workspace.file("receiver") + "/uploads"
        let stored = try FileManager.default.contentsOfDirectory(atPath: uploads).filter { !$0.contains(".") }
        #expect(stored.count == 1, "\(stored)")
        if let name = stored.first {
            let data = try #require(FileManager.default.contents(atPath: uploads + "/" + name))
            #expect(SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() == expected, "byte-identical")
        }
        await receiver.stop()

        // A missing file is refused at once, with the reason.
        let missing = try await TunerProcess.run([
            "upload", workspace.file("nope.mp4"), "--to", "http://127.0.0.1:1/x", "--data", workspace.file("sender"),
        ])
        #expect(!missing.succeeded && missing.errorOutput.contains("not a file to upload"), "\(missing.transcript)")
    }

    @Test func aPlainPutUploadArrivesWhole() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let bytes = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = workspace.file("clip.bin")
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let upload = try await TunerProcess.run([
            "upload", file, "--to", origin.baseURL + "/sink/clip.bin", "--wait", "--data", workspace.file("data"),
        ])
        #expect(upload.succeeded, "\(upload.transcript)")
        let received = origin.receivedUpload(name: "clip.bin")
        #expect(received?.method == "PUT")
        #expect(received?.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
        try await origin.shutdown()
    }
}
