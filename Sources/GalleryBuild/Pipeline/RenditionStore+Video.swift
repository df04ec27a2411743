import Foundation
import GalleryCore
import Imaging
import Loading
import Synchronization
import Video

/// Clips: a poster frame made into thumbnails as any photo is, and web videos beside them, in one
/// set. ffmpeg runs on a thread of the imaging pool, one ffmpeg thread a run, so that the pool's
/// width bounds libvips and ffmpeg together and the cores are never oversubscribed.
extension RenditionStore {
    /// The file's first bytes are a clip's (MP4, QuickTime, WebM, MKV, AVI).
    static func isClip(_ file: URL) -> Bool {
        PlainFile.head(of: file).flatMap(ImageSniffer.videoType(of:)) != nil
    }

    /// ffmpeg and ffprobe with the site's `video:` settings, looked for once (not under the lock:
    /// two clips met at once may both look); ffmpeg that did not answer is asked again for the
    /// next clip.
    var transcoderState: VideoTranscoder.Located {
        if let known = locatedTranscoder.withLock({ $0 }) { return known }
        let located = VideoTranscoder.locate(settings: videoSettings)
        if case .broken = located { return located }
        locatedTranscoder.withLock { $0 = located }
        return located
    }

    /// ffmpeg and ffprobe with the site's `video:` settings; nil when they are not there or do
    /// not answer.
    var transcoder: VideoTranscoder? {
        if case .found(let transcoder) = transcoderState { return transcoder }
        return nil
    }

    /// This build's video recipe and the stems of the videos of the clip `originalSHA256`, for
    /// checking a clip's set made elsewhere; nil without ffmpeg.
    func videoCheck(of originalSHA256: String) -> (recipe: VideoRecipe, stems: [ImageFormat: String])? {
        transcoder.map { ($0.recipe, videoStems(of: originalSHA256, recipe: $0.recipe)) }
    }

    /// The file names' stems of a clip's videos (one per format).
    func videoStems(of originalSHA256: String, recipe: VideoRecipe) -> [ImageFormat: String] {
        Self.stems(formats: recipe.formats) { recipe.fileKeyMaterial(originalSHA256: originalSHA256, format: $0) }
    }

    /// Probes the clip, makes its poster's thumbnails and its videos, and hashes them; the
    /// transcode is stopped when the build is interrupted.
    func clipSet(of original: Original, stems: [ImageFormat: String]) async throws -> (ProcessedImage, [String]) {
        let transcoder: VideoTranscoder
        switch transcoderState {
        case .found(let found): transcoder = found
        case .missing:
            throw VideoError(.toolMissing, "a clip, and ffmpeg is not installed (Debian: apt install ffmpeg)")
        case .broken(let problem): throw VideoError(.transcode, "a clip, and ffmpeg does not answer: \(problem)")
        }
        let videoStems = videoStems(of: original.sha256, recipe: transcoder.recipe)
        let file = original.file
        let directory = directory
        let stopped = StopSignal()
        let footage = footage
        let clip = original.sha256
        return try await withTaskCancellationHandler {
            try await pool.run { [processor] in
                defer { footage.end(clip) }
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let probe = try transcoder.probe(file, name: "the clip", shouldStop: { stopped.isSet })
                footage.begin(clip, seconds: probe.duration)
                let poster = AtomicFile.temporaryURL(for: directory.appendingPathComponent("poster.png"))
                defer { try? FileManager.default.removeItem(at: poster) }
                try transcoder.writePoster(
                    of: file, probe: probe, to: poster, name: "the clip", shouldStop: { stopped.isSet })
                var (image, warnings) = try processor.process(
                    poster, named: "the clip's poster", stems: stems, into: directory)
                do {
                    image.renditions += try transcoder.transcode(
                        file, probe: probe, stems: videoStems, into: directory, name: "the clip",
                        shouldStop: { stopped.isSet }, progress: { footage.advance(clip, to: $0) })
                } catch {
                    // A clip that fails leaves no file its record does not name: its poster's
                    // thumbnails go too (its videos went in the transcoder).
                    for rendition in image.renditions {
                        try? FileManager.default.removeItem(at: directory.appendingPathComponent(rendition.fileName))
                    }
                    throw error
                }
                image.video = VideoDetails(
                    duration: probe.duration, hasAudio: probe.hasAudio && transcoder.recipe.audio,
                    recipe: transcoder.recipe.fingerprint)
                var metadata = PhotoMetadata()
                metadata.taken = probe.taken.flatMap { CaptureTime(local: $0.local, offset: $0.offset) }
                image.metadata = metadata
                return (try Self.hashed(image, in: directory), warnings)
            }
        } onCancel: {
            stopped.set()
        }
    }
}

/// Set once, from a cancellation handler; read by a child process's wait loop.
final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func set() { flag.store(true, ordering: .relaxed) }
}

/// Seconds of footage transcoded by this build and of the clips it has met, told to the progress
/// display as they move: each clip counts for its length once it is probed, and advances as
/// ffmpeg works through it.
final class FootageMeter: Sendable {
    private struct Tally {
        var total = 0.0
        var finished = 0.0
        /// Clips under way: their length and how much of it is done.
        var running: [String: (length: Double, done: Double)] = [:]
    }

    private let tally = Mutex(Tally())
    private let changed: @Sendable (Double, Double) -> Void

    init(changed: @escaping @Sendable (Double, Double) -> Void) {
        self.changed = changed
    }

    func begin(_ clip: String, seconds: Double) {
        update {
            $0.total += seconds
            $0.running[clip] = (seconds, 0)
        }
    }

    func advance(_ clip: String, to seconds: Double) {
        update { $0.running[clip]?.done = seconds }
    }

    /// The clip's work is over, done or failed: it counts as done (a failed clip has no more to do).
    func end(_ clip: String) {
        update { tally in
            guard let running = tally.running.removeValue(forKey: clip) else { return }
            tally.finished += running.length
        }
    }

    /// Told under the lock, so that the display never hears an older figure after a newer one.
    private func update(_ change: (inout Tally) -> Void) {
        tally.withLock { tally in
            change(&tally)
            changed(tally.finished + tally.running.values.reduce(0) { $0 + $1.done }, tally.total)
        }
    }
}
