import ArgumentParser
import Foundation
import GalleryCore

/// The `gallerygen` command: parses arguments, calls GalleryBuild, maps errors to exit codes.
@main
struct GalleryGen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallerygen",
        abstract: "Build a static photo gallery from a feed.",
        discussion: """
            Exit codes: 0 built; 1 build failed, or photos failed with --strict or over max_failures;
            2 configuration or usage error; 130 interrupted.
            """,
        version: GalleryVersion.current,
        subcommands: [BuildCommand.self, ServeCommand.self, CacheCommand.self, InitCommand.self],
        defaultSubcommand: BuildCommand.self
    )

    /// ArgumentParser's own `main`, except that a usage error exits 2 (the exit codes docs/publishing.md lists), not 64.
    static func main() async {
        #if canImport(Glibc)
            MallocArenas.limit()
        #endif
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error).terminalSafe + "\n").utf8))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}
