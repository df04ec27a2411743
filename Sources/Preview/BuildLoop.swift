import Foundation
import GalleryBuild
import Reporting

/// Runs the builds of a preview, one after another: a change while a build runs starts a new
/// build at once, which supersedes the running one (loads the new build also needs are joined,
/// the rest are cancelled). Successful builds reload the open pages; a failed one keeps the last
/// good site and shows its error in the terminal and in the pages.
actor BuildLoop {
    typealias Log = @Sendable (String) -> Void

    private let siteDirectory: URL
    private let options: BuildOptions
    private let resources: BuildResources
    private let liveReload: LiveReload
    private let log: Log
    private var current: (id: Int, task: Task<BuildOutcome, Never>)?
    private var nextID = 0
    /// The last successful build's result.
    private(set) var lastResult: BuildResult?

    enum BuildOutcome: Sendable {
        case built(BuildResult)
        case failed(String)
        case superseded
    }

    init(
        siteDirectory: URL, options: BuildOptions, resources: BuildResources, liveReload: LiveReload, log: @escaping Log
    ) {
        self.siteDirectory = siteDirectory
        self.options = options
        self.resources = resources
        self.liveReload = liveReload
        self.log = log
    }

    /// Starts a build now, superseding the one under way; returns its outcome when it ends.
    @discardableResult
    func rebuild(reason: String) async -> BuildOutcome {
        let task = start(reason: reason)
        return await task.value
    }

    /// Starts a build and returns at once. With `quietUnlessFeedChanged` (a poll), the pages
    /// reload and the terminal hears of it only when the feed's content changed.
    @discardableResult
    func start(reason: String, quietUnlessFeedChanged: Bool = false) -> Task<BuildOutcome, Never> {
        nextID += 1
        let id = nextID
        // `current` is set only while a build runs (finished() clears it).
        let previous = current?.task
        var supersede: (@Sendable () async -> Void)?
        if let previous {
            supersede = {
                // The new build knows its URLs and has claimed them: the old build may go.
                previous.cancel()
                _ = await previous.value
            }
        }
        let builder = SiteBuilder(
            siteDirectory: siteDirectory, options: options, mode: .preview(resources, supersede: supersede))
        let feedBefore = lastResult?.feedSHA256
        let task = Task { [log] () -> BuildOutcome in
            if !quietUnlessFeedChanged {
                log(previous != nil ? "\(reason): rebuilding (superseding the build under way)" : "\(reason): building")
            }
            do throws(BuildError) {
                let result = try await builder.build()
                previous?.cancel()
                return self.finished(
                    id, .built(result), announce: !quietUnlessFeedChanged || result.feedSHA256 != feedBefore)
            } catch {
                previous?.cancel()
                if error.code == .interrupted { return .superseded }
                return self.finished(id, .failed(error.description))
            }
        }
        current = (id, task)
        return task
    }

    private func finished(_ id: Int, _ outcome: BuildOutcome, announce: Bool = true) -> BuildOutcome {
        // A build that a newer one superseded reports nothing: the newer one speaks for both.
        guard current?.id == id else { return .superseded }
        current = nil
        switch outcome {
        case .built(let result) where result.report.outputKept:
            // It wrote nothing: the site served is the last good one.
            let message = result.failure(strict: false) ?? "the site would show no photo"
            log("error: \(message)\nServing the last good site.")
            liveReload.publish(.failed(message))
        case .built(let result):
            lastResult = result
            guard announce else { return outcome }
            log(result.report.summary)
            for warning in result.report.warnings { log("warning: \(warning)") }
            for failure in result.report.failures { log("entry \(failure.index): \(failure.message)") }
            liveReload.publish(.reload)
        case .failed(let message):
            log("error: \(message)\nServing the last good site.")
            liveReload.publish(.failed(message))
        case .superseded:
            break
        }
        return outcome
    }

    /// Cancels the build under way and waits for it to stop (nothing half-written).
    func stop() async {
        guard let task = current?.task else { return }
        task.cancel()
        _ = await task.value
    }
}
