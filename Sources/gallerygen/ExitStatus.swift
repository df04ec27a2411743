import ArgumentParser
import GalleryBuild

/// The exit codes docs/publishing.md lists.
enum ExitStatus {
    static let built = ExitCode(0)
    static let failed = ExitCode(1)
    static let usage = ExitCode(2)
    static let interrupted = ExitCode(130)

    /// The one place where a build error becomes an exit code.
    static func code(for error: BuildError) -> ExitCode {
        switch error.code {
        case .configuration: usage
        case .interrupted: interrupted
        case .feed, .intro, .theme, .imaging, .cache, .output, .remoteCache: failed
        }
    }
}
