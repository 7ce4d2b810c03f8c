import Foundation
import TunerTesting

// A fake IPTV provider for scripts/bench-live: `tuner-live-origin <folder> <channels>` makes
// <channels> small MPEG-TS streams with ffmpeg (each with its own PIDs and service id, so mixed
// bytes would show), serves them endlessly in real time at /ch<N>.ts, prints `port <N>`, then
// reads commands on standard input: `dead|normal|stall|garbage|frozen <name>` and `count <name>`
// (prints `count <name> <connections ever> <open now>`).

let arguments = CommandLine.arguments
guard arguments.count == 3, let channels = Int(arguments[2]), channels > 0, channels <= 200 else {
    FileHandle.standardError.write(Data("usage: tuner-live-origin <folder> <channels 1…200>\n".utf8))
    exit(2)
}
let folder = arguments[1]
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
let origin = try await LiveTSOrigin.start()
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
        say("count \(words[1]) \(origin.connectionCount(words[1])) \(origin.openConnections(words[1]))")
    } else if let mode = LiveTSOrigin.Mode(rawValue: words[0]) {
        origin.set(words[1], mode)
        say("ok")
    }
}
await origin.shutdown()
