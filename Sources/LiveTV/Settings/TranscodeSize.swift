/// A size an HDHomeRun player asks for with `?transcode=<name>`, as SiliconDust's HTTP development
/// guide names them for its transcoding models. Each is a session of its own (one ffmpeg per
/// channel and size, shared by the viewers asking for it).
///
/// A size is a box the picture fits in, never larger than the source and with its display aspect
/// kept: the height is the box's, or the source's when smaller; the width follows the aspect,
/// rounded to 16 as SiliconDust's table does (16:9 at 480 lines is 848 wide, 4:3 is 640).
public enum TranscodeSize: String, Sendable, CaseIterable {
    /// AVC at the source's size and frame rate.
    case heavy
    /// At most 1280x720 at 30 frames a second.
    case mobile
    /// At most 1280x720 at 30 frames a second, at a low bitrate.
    case internet720
    /// At most 960x540 (what Jellyfin asks for).
    case internet540
    /// At most 848x480 (640x480 for 4:3).
    case internet480
    /// At most 640x360 (480x360 for 4:3).
    case internet360
    /// At most 432x240 (320x240 for 4:3).
    case internet240

    /// The names `?transcode=` takes: the sizes, and `native` (or `none`) for the stream as it is.
    public static let names = ["native"] + allCases.map(\.rawValue)

    /// The box the picture fits in; nil keeps the source's size.
    var box: (width: Int, height: Int)? {
        switch self {
        case .heavy: nil
        case .mobile, .internet720: (1280, 720)
        case .internet540: (960, 540)
        case .internet480: (848, 480)
        case .internet360: (640, 360)
        case .internet240: (432, 240)
        }
    }

    /// Video and audio bitrates in kbit/s (heavy's video is by quality, capped instead).
    private var bitrates: (video: Int, audio: Int) {
        switch self {
        case .heavy: (12_000, 192)
        case .mobile: (2_500, 128)
        case .internet720: (1_500, 96)
        case .internet540: (1_000, 96)
        case .internet480: (700, 64)
        case .internet360: (450, 64)
        case .internet240: (250, 48)
        }
    }

    /// ffmpeg's scale filter for the box: `dar` is the source's display aspect. The height allows
    /// 16 pixels of width above the box so that 16:9 at 480 lines stays 480 (848 wide, not 853);
    /// the scale filter adjusts the sample aspect so the display aspect is the source's exactly.
    /// Both sides are even (H.264 in 4:2:0 needs it) and at least 2.
    var scaleFilter: String {
        guard let box else { return "scale=w='max(2,trunc(iw/2)*2)':h='max(2,trunc(ih/2)*2)'" }
        let height = "max(2,trunc(min(min(\(box.height),ih),\(box.width + 16)/dar)/2)*2)"
        let width = "max(2,trunc(min(min(\(box.width),iw),round(oh*dar/16)*16)/2)*2)"
        return "scale=w='\(width)':h='\(height)'"
    }

    /// The ffmpeg arguments between the input and the MPEG-TS output.
    var ffmpegArguments: [String] {
        let (video, audio) = bitrates
        var arguments = [
            "-map", "0:v:0?", "-map", "0:a:0?", "-vf", scaleFilter + ",format=yuv420p",
            "-c:v", "libx264", "-preset", "veryfast",
            // A keyframe every two seconds: viewers join a shared session at one.
            "-force_key_frames", "expr:gte(t,n_forced*2)",
        ]
        if self == .heavy {
            arguments += ["-crf", "20", "-maxrate", "\(video)k", "-bufsize", "\(video * 2)k"]
        } else {
            arguments += [
                "-fpsmax", "30", "-b:v", "\(video)k", "-maxrate", "\(video)k", "-bufsize", "\(video * 2)k", "-ac", "2",
            ]
        }
        return arguments + ["-c:a", "aac", "-b:a", "\(audio)k"]
    }
}
