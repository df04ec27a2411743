import Foundation
import GalleryBuild

/// `--poll SECONDS`: rebuilds every so often; the rebuild revalidates the remote feed (a 304 when
/// it has not changed), and the pages reload only when the feed's content changed.
struct FeedPoller: Sendable {
    let loop: BuildLoop
    let interval: Duration

    func run() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            _ = await loop.start(reason: "poll", quietUnlessFeedChanged: true).value
        }
    }
}
