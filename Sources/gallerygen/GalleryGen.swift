import ArgumentParser
import Foundation

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
        version: "0.1.0",
        subcommands: [BuildCommand.self],
        defaultSubcommand: BuildCommand.self
    )
}
