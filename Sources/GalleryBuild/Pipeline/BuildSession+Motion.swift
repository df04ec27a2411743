import Foundation
import GalleryCore
import Loading
import Reporting

/// Live Photos: the clip beside a still (``Photo/motion``) is loaded and made as any clip is
/// (cached by its bytes, shared through the remote cache), and its web videos go with the still
/// to the photo's tile, page and the site's files.
extension BuildSession {
    /// Gives each Live Photo whose still was made its motion's videos. A motion that cannot be
    /// made is a warning: the still is shown alone.
    func makeMotions(_ context: inout BuildContext) async {
        let wanted = context.items.indices.compactMap { offset -> (offset: Int, motion: URL)? in
            let item = context.items[offset]
            guard let motion = item.photo.motion, item.outcome?.image != nil else { return nil }
            return (offset, motion)
        }
        guard !wanted.isEmpty else { return }
        typealias Made = Result<(original: Original, outcome: RenditionStore.Outcome), any Error>
        var made: [Int: Made] = [:]
        await withTaskGroup(of: (Int, Made).self) { group in
            var running = 0
            for (offset, motion) in wanted {
                if running >= max(4, options.concurrency ?? config.concurrency), let (done, result) = await group.next()
                {
                    made[done] = result
                    running -= 1
                }
                running += 1
                group.addTask { [loader, renditions] in
                    do {
                        guard let source = CanonicalURL(motion) else {
                            throw MotionProblem(message: "not a loadable URL")
                        }
                        let original = try await loader.original(for: source)
                        let outcome = try await renditions.renditions(of: original) { damaged in
                            try await loader.freshCopy(of: damaged)
                        }
                        guard outcome.image.video != nil else {
                            throw MotionProblem(message: "not a clip")
                        }
                        return (offset, .success((original, outcome)))
                    } catch {
                        return (offset, .failure(error))
                    }
                }
            }
            for await (offset, result) in group { made[offset] = result }
        }
        var processed: Set<String> = []
        for (offset, motion) in wanted {
            guard let result = made[offset] else { continue }
            switch result {
            case .success(let (clip, outcome)):
                context.motionOriginals.append(clip)
                let videos = outcome.image.videos.map { file in
                    var file = file
                    file.path = PublicImages.path(of: file)
                    return file
                }
                context.items[offset].outcome?.changeImage { $0.motion = videos }
                if outcome.wasProcessed, processed.insert(clip.sha256).inserted {
                    context.report.counts.processed += 1
                    context.report.counts.footageSeconds += outcome.image.video?.duration ?? 0
                }
            case .failure(let error):
                let warning =
                    "\(displayName(of: motion)): the motion of a Live Photo: \(FailureCause.message(of: error)); "
                    + "the still is shown alone"
                context.warn(warning)
            }
        }
    }

    private struct MotionProblem: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
