import Foundation
import TunerTesting

// A fake IPTV provider for scripts/bench-live: `tuner-live-origin <folder> <channels>` makes
// <channels> small MPEG-TS streams with ffmpeg (each with its own PIDs and service id, so mixed
// bytes would show), serves them endlessly in real time at /ch<N>.ts, prints `port <N>`, then
// reads commands on standard input: `dead|normal|stall|garbage|frozen <name>` and `count <name>`
// (prints `count <name> <connections ever> <open now> <bytes sent>`). A third argument `HOST:PORT` listens
// there instead of on a free port of 127.0.0.1 (a test's network namespace), and keeps serving
// after standard input ends.

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let channels = Int(arguments[2]), channels > 0, channels <= 200
else {
    FileHandle.standardError.write(Data("usage: tuner-live-origin <folder> <channels 1…200> [HOST:PORT]\n".utf8))
    exit(2)
}
var listen = (host: "127.0.0.1", port: 0)
if arguments.count == 4 {
    let parts = arguments[3].split(separator: ":")
    guard parts.count == 2, let port = Int(parts[1]), (0...65535).contains(port) else {
        FileHandle.standardError.write(Data("tuner-live-origin: HOST:PORT like 10.0.0.20:8001\n".utf8))
        exit(2)
    }
    listen = (String(parts[0]), port)
}
let folder = arguments[1]
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
let origin = try await LiveTSOrigin.start(host: listen.host, port: listen.port)
for index in 0..<channels {
    let path = folder + "/ch\(index).ts"
    if !FileManager.default.fileExists(atPath: path) {
        try await LiveTSOrigin.makeStream(at: path, seconds: 4, firstPID: 0x100 + index * 0x10, serviceID: index + 1)
    }
    try origin.serve("ch\(index)", file: path, seconds: 4)
}
/// Prints a line at once (the script reads the answers as they come).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

say("port \(origin.port)")
while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard words.count == 2 else { continue }
    if words[0] == "count" {
        say(
            "count \(words[1]) \(origin.connectionCount(words[1])) \(origin.openConnections(words[1])) "
                + "\(origin.bytesSent(words[1]))")
    } else if let mode = LiveTSOrigin.Mode(rawValue: words[0]) {
        origin.set(words[1], mode)
        say("ok")
    }
}
// Standard input closed (a test started it with none): serve until a signal ends the process;
// `GET /count/<name>` answers what `count` would.
if arguments.count == 4 {
    while true { try await Task.sleep(for: .seconds(3600)) }
}
await origin.shutdown()
