import Foundation
import GalleryBuild
import GalleryCore
import Reporting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress and messages: a redrawn progress bar per stage on a terminal, a plain line per stage
/// otherwise (CI logs). Errors and warnings go to standard error. Under GitHub Actions
/// (`GITHUB_ACTIONS=true`) each stage is also a collapsible group, failures are annotations
/// (``GitHubActions``, on standard output as workflow commands are), and the build's summary is
/// appended to `$GITHUB_STEP_SUMMARY`.
final class Console: Sendable {
    private let quiet: Bool
    private let verbose: Bool
    private let isTerminal: Bool
    private let githubActions: Bool
    private let stepSummary: String?
    private let state = Mutex(State())

    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var barShown = false
        /// The images stage's count, redrawn with the footage as it moves.
        var images: (done: Int, total: Int)?
        var footage: (done: Double, total: Double)?
    }

    init(quiet: Bool, verbose: Bool) {
        self.quiet = quiet
        self.verbose = verbose
        let environment = ProcessInfo.processInfo.environment
        self.isTerminal = isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
        self.githubActions = environment["GITHUB_ACTIONS"] == "true"
        self.stepSummary = githubActions ? environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 } : nil
    }

    func handle(_ event: BuildEvent) {
        guard !quiet else { return }
        switch event {
        case .started(let stage, let total):
            if stage == .images { state.withLock { $0.images = (0, total ?? 0) } }
            if githubActions { command(GitHubActions.groupStart(stage.title)) }
            if !isTerminal { line("\(stage.title)…") }
        case .advanced(let stage, let done, let total):
            guard isTerminal else { return }
            if stage == .images { state.withLock { $0.images = (done, total) } }
            drawBar(stage: stage, done: done, total: total)
        case .footage(let done, let total):
            guard isTerminal,
                let images = state.withLock({ state in
                    state.footage = (done, total)
                    return state.images
                })
            else { return }
            drawBar(stage: .images, done: images.done, total: images.total)
        case .finished(let stage, let seconds):
            clearBar()
            line(String(format: "%@ done in %.2fs", stage.title, seconds))
            if githubActions { command(GitHubActions.groupEnd) }
        case .warning(let message):
            if verbose {
                clearBar()
                warn(message)
            }
        case .failed(let failure):
            if verbose {
                clearBar()
                warn(failure.line)
            }
        }
    }

    /// The end of a build: its warnings (unless `--verbose` printed them as they came), and its
    /// failures one line per cause and host, with a count and a few examples.
    func report(_ report: BuildReport) {
        if !verbose {
            let shown = 20
            for warning in report.warnings.prefix(shown) { warn(warning) }
            if report.warnings.count > shown {
                warn(
                    "… and \(report.warnings.count - shown) more warnings (--verbose prints each, --report lists them)")
            }
        }
        if githubActions {
            guard !quiet else { return }
            for annotation in GitHubActions.annotations(for: report) { command(annotation) }
        } else {
            for group in report.failureGroups() { warn(group.summary) }
        }
    }

    /// Appends the build's Markdown summary to `$GITHUB_STEP_SUMMARY` (under GitHub Actions only);
    /// `error` is the reason a build ended without a site.
    func summarize(_ report: BuildReport?, error: String? = nil) {
        guard let stepSummary else { return }
        var text = report.map(GitHubActions.stepSummary(for:)) ?? "### gallerygen build\n\n"
        if let error { text += "\n**Failed:** \(error)\n" }
        guard let handle = FileHandle(forWritingAtPath: stepSummary) else {
            self.error("cannot append the step summary to \(stepSummary) (GITHUB_STEP_SUMMARY)")
            return
        }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((text + "\n").utf8))
    }

    // What a server said reaches these: its control characters never reach the terminal.

    func say(_ message: String) {
        guard !quiet else { return }
        print(message.terminalSafe)
    }

    func warn(_ message: String) {
        guard !quiet else { return }
        write("warning: \(message.terminalSafe)\n")
    }

    func error(_ message: String) {
        write("error: \(message.terminalSafe)\n")
    }

    /// Clears a progress bar left on the screen.
    func finish() {
        clearBar()
    }

    private func line(_ text: String) {
        write(text.terminalSafe + "\n")
    }

    /// A workflow command, on standard output, unbuffered so that it keeps its place among the
    /// lines on standard error.
    private func command(_ text: String) {
        FileHandle.standardOutput.write(Data((text.terminalSafe + "\n").utf8))
    }

    private func drawBar(stage: BuildStage, done: Int, total: Int) {
        let now = ContinuousClock.now
        let shouldDraw = state.withLock { state -> Bool in
            if done < total, let last = state.lastDraw, now - last < .milliseconds(80) { return false }
            state.lastDraw = now
            state.barShown = true
            return true
        }
        guard shouldDraw else { return }
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        // Clips take far longer than photos: their footage says how far they are.
        let footage = stage == .images ? state.withLock { $0.footage } : nil
        let clips = footage.map { String(format: " · clips %.0f/%.0f s", $0.done, $0.total) } ?? ""
        write("\r\u{1B}[2K\(stage.title) \(bar) \(done)/\(total)\(clips)")
    }

    private func clearBar() {
        let shown = state.withLock { state in
            defer { state.barShown = false }
            return state.barShown
        }
        if shown { write("\r\u{1B}[2K") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
