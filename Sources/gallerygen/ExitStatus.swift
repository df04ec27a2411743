import ArgumentParser
import GalleryBuild

/// The exit codes of shared/DESIGN.md.
enum ExitStatus {
    static let built = ExitCode(0)
    static let failed = ExitCode(1)
    static let usage = ExitCode(2)
    static let interrupted = ExitCode(130)

    static func code(for error: BuildError) -> ExitCode {
        switch error {
        case .configuration: usage
        case .failed: failed
        case .interrupted: interrupted
        }
    }
}
