public import Foundation

/// Short clips made with Debian's ffmpeg from its test patterns (`testsrc2`, a sine tone), shaped
/// like what phones record: HEVC in a QuickTime file turned a quarter with a place and a time,
/// H.264 MP4, silent, variable frame rate, HLG-tagged, cut short. exiftool writes the turn, as a
/// phone's camera does, into the track's display matrix.
public enum TestClip {
    public enum Kind: String, Sendable, CaseIterable {
        /// 320x240 HEVC `.mov`, 2 s with sound, shown turned 90° (240x320), with a place
        /// (`+59.9139+010.7522/`) and a creation time.
        case phoneMOV
        /// 320x240 H.264 `.mp4`, 2 s with sound.
        case plainMP4
        /// 320x240 H.264 `.mp4`, 1 s, no sound.
        case silentMP4
        /// 256x144 H.264 `.mp4` whose frames are 1/30 s and 1/10 s apart in turn.
        case variableFrameRate
        /// 320x180 H.264 `.mp4` tagged HLG (BT.2020, `arib-std-b67`): the tags are what is read.
        case hlgMP4
        /// 320x180 H.264 `.mp4` tagged PQ (BT.2020, `smpte2084`), as HDR10 is.
        case pqMP4
        /// ``plainMP4`` cut off after its first 3,000 bytes.
        case truncated
        /// 1280x720 H.264, a minute with no sound, made fast: a transcode of it takes a while.
        case long
    }

    public static var ffmpegIsInstalled: Bool {
        ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Makes a clip of `kind` as `name` in `folder`; returns its file.
    @discardableResult
    public static func make(_ kind: Kind, named name: String? = nil, in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent(name ?? defaultName(of: kind))
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let pattern = ["-f", "lavfi", "-i"]
        let tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"]
        switch kind {
        case .phoneMOV:
            try ffmpeg(
                pattern + ["testsrc2=size=320x240:rate=30:duration=2"] + tone
                    + ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", "-c:a", "aac"]
                    + ["-metadata", "location=+59.9139+010.7522/", "-metadata", "creation_time=2024-05-01T10:20:30Z"]
                    + [file.path])
            try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original", "-Rotation=90", file.path])
        case .plainMP4:
            try ffmpeg(
                pattern + ["testsrc2=size=320x240:rate=30:duration=2"] + tone
                    + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", file.path])
        case .silentMP4:
            try ffmpeg(
                pattern + ["testsrc2=size=320x240:rate=25:duration=1"]
                    + ["-c:v", "libx264", "-pix_fmt", "yuv420p", file.path])
        case .variableFrameRate:
            try ffmpeg(
                pattern + ["testsrc2=size=256x144:rate=30:duration=2"]
                    + ["-vf", "setpts='if(mod(N,2),PTS+2/30/TB,PTS)'", "-fps_mode", "vfr"]
                    + ["-c:v", "libx264", "-pix_fmt", "yuv420p", file.path])
        case .hlgMP4:
            try ffmpeg(
                pattern + ["testsrc2=size=320x180:rate=25:duration=1"]
                    + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-color_primaries", "bt2020"]
                    + ["-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", file.path])
        case .pqMP4:
            try ffmpeg(
                pattern + ["testsrc2=size=320x180:rate=25:duration=1"]
                    + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-color_primaries", "bt2020"]
                    + ["-color_trc", "smpte2084", "-colorspace", "bt2020nc", file.path])
        case .long:
            try ffmpeg(
                pattern + ["testsrc2=size=1280x720:rate=30:duration=60"]
                    + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file.path])
        case .truncated:
            let whole = try make(.plainMP4, named: "whole-\(UUID().uuidString.prefix(6)).mp4", in: folder)
            try Data(try Data(contentsOf: whole).prefix(3000)).write(to: file)
            try FileManager.default.removeItem(at: whole)
        }
        return file
    }

    static func defaultName(of kind: Kind) -> String {
        switch kind {
        case .phoneMOV: "IMG_0001.MOV"
        case .plainMP4: "clip.mp4"
        case .silentMP4: "silent.mp4"
        case .variableFrameRate: "vfr.mp4"
        case .hlgMP4: "hlg.mp4"
        case .pqMP4: "pq.mp4"
        case .truncated: "broken.mp4"
        case .long: "long.mp4"
        }
    }

    /// The command lines of the ffmpeg processes running now that name `text`.
    public static func runningFFmpeg(naming text: String) -> [String] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
            return line.hasPrefix("ffmpeg ") && line.contains(text) ? line : nil
        }
    }

    /// What ffprobe says of `file`, as JSON.
    public static func probe(_ file: URL) throws -> [String: Any] {
        let answer = try run(
            URL(fileURLWithPath: "/usr/bin/ffprobe"),
            ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file.path])
        return try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] ?? [:]
    }

    static func ffmpeg(_ arguments: [String]) throws {
        try run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-nostdin", "-v", "error", "-y"] + arguments)
    }

    @discardableResult
    static func run(_ tool: URL, _ arguments: [String]) throws -> String {
        let run = try CommandRun.run(tool, arguments)
        guard run.status == 0 else {
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: "\(tool.lastPathComponent) failed: \(run.standardError)"])
        }
        return run.standardOutput
    }
}
