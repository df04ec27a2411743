package import Foundation
package import GalleryCore
import Synchronization

/// Turns a clip into what a page shows: a poster frame (a PNG the image processor then makes
/// thumbnails of, as of any photo) and H.264 MP4s, and VP9 WebMs when asked, at the recipe's
/// heights. ffprobe and ffmpeg run as child processes; each run is one ffmpeg thread, waited for
/// on a thread of the imaging pool, so that the pool's width bounds ffmpeg's and libvips' work
/// together. Outputs are upright, tone-mapped to SDR when the clip is HLG or PQ, and carry no
/// metadata: no place, no time, no device.
package struct VideoTranscoder: Sendable {
    package var recipe: VideoRecipe
    package var settings: VideoSettings
    var ffmpeg = "ffmpeg"
    var ffprobe = "ffprobe"

    /// What looking for ffmpeg and ffprobe found.
    package enum Located: Sendable {
        case found(VideoTranscoder)
        /// Either is not on `PATH`: clips are left out, each with a warning.
        case missing
        /// They are there but did not answer (`-version` failed or timed out): clips fail.
        case broken(String)
    }

    /// ffmpeg and ffprobe from `PATH` with this machine's ffmpeg version.
    package static func locate(settings: VideoSettings) -> Located {
        var version = "unknown"
        for tool in ["ffmpeg", "ffprobe"] {
            do {
                let answer = try ChildProcess(program: tool, arguments: ["-hide_banner", "-version"], timeLimit: 30)
                    .run()
                guard answer.status == 0 else {
                    return .broken("`\(tool) -version` exited with \(answer.status)\(words(answer.errorTail))")
                }
                // `ffmpeg version 5.1.9-0+deb12u1 Copyright …`
                let words = String(decoding: answer.output.prefix(200), as: UTF8.self).split(separator: " ")
                if tool == "ffmpeg", words.count > 2, words[1] == "version" { version = String(words[2]) }
            } catch {
                if case .notFound = error { return .missing }
                return .broken("`\(tool) -version` did not answer: \(error)")
            }
        }
        return .found(
            VideoTranscoder(recipe: VideoRecipe(settings: settings, ffmpegVersion: version), settings: settings))
    }

    /// ffmpeg and ffprobe, when both are there and answer.
    package static func located(settings: VideoSettings) -> VideoTranscoder? {
        if case .found(let transcoder) = locate(settings: settings) { return transcoder }
        return nil
    }

    /// What ffprobe says of `file`, checked against the limits.
    package func probe(
        _ file: URL, name: String, shouldStop: @escaping @Sendable () -> Bool = { false }
    ) throws(VideoError) -> VideoProbe {
        let demuxer = try Self.demuxer(of: file, name: name)
        let answer = try run(
            ffprobe, VideoProbe.arguments(for: Self.input(file, demuxer: demuxer)), timeLimit: 60, name: name,
            shouldStop: shouldStop)
        guard answer.status == 0, var probe = VideoProbe(ffprobeJSON: answer.output) else {
            throw VideoError(.unreadable, "\(name) is no video ffprobe can read\(Self.words(answer.errorTail))")
        }
        probe.demuxer = demuxer
        if probe.duration > settings.maxDuration {
            throw VideoError(
                .overLimit,
                "\(name) runs \(Self.seconds(probe.duration)), over video.max_duration (\(Self.seconds(settings.maxDuration)))"
            )
        }
        if probe.codedWidth * probe.codedHeight > settings.maxPixels {
            throw VideoError(
                .overLimit,
                "\(name) is \(probe.codedWidth)x\(probe.codedHeight), over video.max_pixels (\(settings.maxPixels))")
        }
        return probe
    }

    /// Writes the clip's poster frame to `target` (a PNG, upright, SDR): the frame a second in,
    /// or the middle one of a shorter clip.
    package func writePoster(
        of file: URL, probe: VideoProbe, to target: URL, name: String,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) throws(VideoError) {
        var filters = toneMapping(for: probe)
        // Square pixels: a clip stored squeezed (anamorphic) is shown at its display shape.
        filters += ["scale=\(probe.width):\(probe.height)", "setsar=1", "format=rgb24"]
        let at = probe.duration >= 2 ? 1 : probe.duration / 2
        for seek in [at, 0] {
            let answer = try run(
                ffmpeg,
                [
                    "-nostdin", "-v", "error", "-y", "-threads", "1", "-ss", String(format: "%.3f", seek),
                ] + Self.input(file, demuxer: probe.demuxer)
                    // `V`, not `v`: the clip's own video, never a cover picture stored beside it.
                    + ["-map", "0:V:0", "-frames:v", "1", "-vf", filters.joined(separator: ","), "-map_metadata", "-1"]
                    + ["-f", "image2", "-update", "1", "-c:v", "png", target.path],
                timeLimit: min(settings.timeLimit, 300), name: name, shouldStop: shouldStop)
            if answer.status == 0, let status = FileStatus(target), status.size > 0 { return }
            if seek == 0 {
                throw VideoError(.transcode, "ffmpeg made no poster of \(name)\(Self.words(answer.errorTail))")
            }
        }
    }

    /// The web videos' sizes: each of the recipe's heights no larger than the clip's shorter side
    /// (the clip's own when all are larger), as even width and height, upright.
    package func outputSizes(for probe: VideoProbe) -> [(width: Int, height: Int)] {
        recipe.outputSizes(width: probe.width, height: probe.height)
    }

    /// Makes the clip's web videos in `directory`, named `<stem>-<height>p.<ext>` by the stems of
    /// each format; returns them as renditions (paths are file names, hashes not taken).
    ///
    /// `progress` hears the seconds of the clip done so far, all its videos together counting as
    /// the clip's length once (ffmpeg's `-progress`, about twice a second).
    package func transcode(
        _ file: URL, probe: VideoProbe, stems: [ImageFormat: String], into directory: URL, name: String,
        shouldStop: @escaping @Sendable () -> Bool, progress: @escaping @Sendable (Double) -> Void = { _ in }
    ) throws(VideoError) -> [Rendition] {
        var made: [Rendition] = []
        let outputs = recipe.formats.filter { stems[$0] != nil }.count * outputSizes(for: probe).count
        var finished = 0
        // video.time_limit is the clip's, all its videos together.
        let clock = ContinuousClock()
        let started = clock.now
        // A clip that fails leaves none of its videos: they would be files no record names.
        var succeeded = false
        defer {
            if !succeeded {
                for file in made {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(file.path))
                }
            }
        }
        for format in recipe.formats {
            guard let stem = stems[format] else { continue }
            for size in outputSizes(for: probe) {
                let share = probe.duration / Double(max(1, outputs))
                let before = Double(finished) * share
                let meter = ProgressReader(duration: probe.duration) { fraction in
                    progress(before + fraction * share)
                }
                let fileName = "\(stem)-\(min(size.width, size.height))p.\(format.fileExtension)"
                let target = directory.appendingPathComponent(fileName)
                let partial = AtomicFile.temporaryURL(for: target)
                defer { try? FileManager.default.removeItem(at: partial) }
                var filters = toneMapping(for: probe)
                filters += ["scale=\(size.width):\(size.height)", "setsar=1", "format=yuv420p"]
                let remaining = settings.timeLimit - (clock.now - started).seconds
                guard remaining > 0 else {
                    throw VideoError(
                        .transcode,
                        "ffmpeg ran past video.time_limit (\(Self.seconds(settings.timeLimit))) on \(name) and was stopped"
                    )
                }
                let answer = try run(
                    ffmpeg,
                    ["-nostdin", "-v", "error", "-y", "-threads", "1"] + Self.input(file, demuxer: probe.demuxer)
                        // `V`: the clip's own video, not a cover picture; never longer than
                        // video.max_duration, whatever the file's header says of its length.
                        + ["-map", "0:V:0", "-t", String(Int(settings.maxDuration))]
                        + (recipe.audio && probe.hasAudio ? ["-map", "0:a:0?"] : ["-an"])
                        + ["-vf", filters.joined(separator: ",")] + Self.codecArguments(for: format)
                        + ["-map_metadata", "-1", "-map_metadata:s:v", "-1", "-map_metadata:s:a", "-1"]
                        + ["-map_chapters", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact"]
                        + ["-flags:a", "+bitexact", "-progress", "pipe:1", "-nostats"]
                        + ["-f", format.rawValue, partial.path],
                    timeLimit: remaining, name: name, shouldStop: shouldStop, onOutput: meter.read)
                finished += 1
                progress(Double(finished) * share)
                guard answer.status == 0 else {
                    throw VideoError(
                        .transcode,
                        "ffmpeg could not make the \(format.rawValue) of \(name) (exit \(answer.status))"
                            + Self.words(answer.errorTail))
                }
                do {
                    try AtomicFile.commit(partial, to: target)
                    made.append(
                        Rendition(
                            format: format, width: size.width, height: size.height, path: fileName,
                            byteCount: FileStatus(target)?.size ?? 0))
                } catch {
                    throw VideoError(.write, "could not write \(fileName): \(error.localizedDescription)")
                }
            }
        }
        succeeded = true
        return made
    }

    /// How ffmpeg and ffprobe are told to read `file`: with the demuxer its first bytes name (MP4
    /// and QuickTime, Matroska and WebM, AVI), never by ffmpeg's own guess, and from the file
    /// alone: a clip that is really an HLS or concat playlist, or that points at other files or
    /// URLs, is not followed (`-protocol_whitelist file`).
    static func input(_ file: URL, demuxer: String) -> [String] {
        ["-protocol_whitelist", "file", "-f", demuxer, "-i", file.path]
    }

    /// The demuxer `file`'s first bytes name, read once, by ``probe(_:name:shouldStop:)``.
    static func demuxer(of file: URL, name: String) throws(VideoError) -> String {
        switch PlainFile.head(of: file).flatMap(MediaKind.videoContainer(of:)) {
        case "mp4": "mov"
        case "matroska": "matroska"
        case "avi": "avi"
        default: throw VideoError(.unreadable, "\(name) does not start like a video (MP4, QuickTime, WebM, MKV or AVI)")
        }
    }

    /// The encoder's arguments: H.264 High with AAC and the index first (`+faststart`: playback
    /// starts before the file has arrived), or VP9 with Opus.
    static func codecArguments(for format: ImageFormat) -> [String] {
        switch format {
        case .webm:
            ["-c:v", "libvpx-vp9", "-crf", "33", "-b:v", "0", "-deadline", "good", "-cpu-used", "4", "-threads", "1"]
                + ["-c:a", "libopus", "-b:a", "96k", "-ac", "2"]
        default:
            ["-c:v", "libx264", "-preset", "medium", "-crf", "23", "-profile:v", "high", "-threads", "1"]
                + ["-c:a", "aac", "-b:a", "128k", "-ac", "2", "-movflags", "+faststart"]
        }
    }

    /// HLG and PQ to SDR (BT.709), through linear light with zimg; nothing for an SDR clip.
    func toneMapping(for probe: VideoProbe) -> [String] {
        guard probe.isHDR else { return [] }
        return [
            "zscale=t=linear:npl=100", "format=gbrpf32le", "zscale=p=bt709", "tonemap=tonemap=hable:desat=0",
            "zscale=t=bt709:m=bt709:r=tv",
        ]
    }

    private func run(
        _ program: String, _ arguments: [String], timeLimit: Double, name: String,
        shouldStop: @escaping @Sendable () -> Bool, onOutput: (@Sendable (Data) -> Void)? = nil
    ) throws(VideoError) -> ChildProcess.Result {
        do {
            return try ChildProcess(
                program: program, arguments: arguments, timeLimit: timeLimit, shouldStop: shouldStop,
                onOutput: onOutput
            ).run()
        } catch {
            switch error {
            case .notFound(let program):
                throw VideoError(.toolMissing, "\(program) is not installed (Debian: apt install ffmpeg)")
            case .timedOut(let seconds, let tail):
                throw VideoError(
                    .transcode,
                    "\(program) ran past video.time_limit (\(Self.seconds(seconds))) on \(name) and was stopped"
                        + Self.words(tail))
            case .stopped:
                throw VideoError(.stopped, "the build was interrupted while \(program) worked on \(name)")
            case .outputTooLarge(let limit):
                throw VideoError(.unreadable, "\(program) said more than \(limit) bytes of \(name)")
            case .notStarted(let program, let code):
                throw VideoError(.transcode, "\(program) could not be started (\(String(cString: strerror(code))))")
            case .lost(let code):
                throw VideoError(.transcode, "lost \(program)'s output on \(name) (\(String(cString: strerror(code))))")
            }
        }
    }

    /// ffmpeg's last line or two, to quote in a message: without the addresses of its objects
    /// (`[mov,mp4 @ 0x55d1c0a3e2c0]`) and without the machine's paths (a cached copy's, a
    /// temporary file's), which change from one run to the next, so that two builds of the same
    /// inputs say the same words, in the report and the manifest alike.
    static func words(_ errorTail: String) -> String {
        let address = #" @ 0x[0-9A-Fa-f]+"#
        let path = #"(?<![\w.])/[^\s:'"]*/[^\s:'"]*"#
        let lines = errorTail.split(whereSeparator: \.isNewline).suffix(2).map { line in
            line.replacingOccurrences(of: address, with: "", options: .regularExpression)
                .replacingOccurrences(of: path, with: "(file)", options: .regularExpression)
                .trimmingCharacters(in: .whitespaces)
        }
        let text = lines.filter { !$0.isEmpty }.joined(separator: " / ")
        return text.isEmpty ? "" : ": ffmpeg said \"\(text.prefix(400))\""
    }

    static func seconds(_ value: Double) -> String {
        value.rounded() == value ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

/// Reads ffmpeg's `-progress` lines (`out_time_us=1500000`) as they arrive and says how far the
/// run is, as a fraction of the clip's length.
final class ProgressReader: Sendable {
    private let duration: Double
    private let report: @Sendable (Double) -> Void
    private let pending = Mutex<[UInt8]>([])

    init(duration: Double, report: @escaping @Sendable (Double) -> Void) {
        self.duration = duration
        self.report = report
    }

    func read(_ data: Data) {
        let lines = pending.withLock { pending -> [String] in
            pending += data
            guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let complete = pending[...last]
            pending.removeSubrange(...last)
            return complete.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        }
        for line in lines where line.hasPrefix("out_time_us=") {
            guard duration > 0, let microseconds = Double(line.dropFirst("out_time_us=".count)) else { continue }
            report(min(1, max(0, microseconds / 1e6 / duration)))
        }
    }
}
