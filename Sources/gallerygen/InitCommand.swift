import ArgumentParser
import Foundation
import GalleryBuild
import GalleryCore
import SiteStarter

extension CIWorkflow: ExpressibleByArgument {}

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start a site: a commented gallery.yml, index.md, .gitignore, and a CI workflow if asked.",
        discussion: "Existing files are never replaced. The feed is read once, to name its format and count its photos."
    )

    @Argument(help: "The site folder to start (made if missing).", completion: .directory)
    var siteDirectory: String = "."

    @Option(help: "The photos: a feed URL, a JSON feed file, or a folder of images (default: a photos/ folder).")
    var feed: String?

    @Option(help: "Also write a CI workflow that publishes the site: github (GitHub Pages) or gitlab (GitLab Pages).")
    var ci: CIWorkflow?

    @Option(
        help: ArgumentHelp(
            "The feed's format, when it cannot be found by reading it: webdav (a WebDAV folder), rss, mastodon, "
                + "piwigo, flickr, ...; written to gallery.yml.",
            valueName: "format"))
    var format: String?

    func validate() throws {
        if let format, FeedFormat(rawValue: format.lowercased()) == nil {
            let choices = FeedFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("unknown --format \"\(format)\"; use one of \(choices)")
        }
    }

    func run() async throws {
        let console = Console(quiet: false, verbose: false)
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let starter = SiteStarter(
            directory: URL(fileURLWithPath: siteDirectory, isDirectory: true, relativeTo: workingDirectory),
            feed: feed, ci: ci, workingDirectory: workingDirectory,
            format: format.flatMap { FeedFormat(rawValue: $0.lowercased()) })
        let outcome: SiteStarter.Outcome
        do {
            outcome = try await starter.run()
        } catch {
            console.error(error.description)
            throw ExitStatus.code(for: error)
        }
        if let summary = outcome.feedSummary { console.say("Feed: \(summary)") }
        for warning in outcome.warnings { console.warn(warning) }
        for path in outcome.written { console.say("wrote \(path)") }
        for path in outcome.kept { console.say("kept  \(path) (it exists; not replaced)") }
        if let ci, outcome.written.contains(where: { $0.hasSuffix(ci.path) }) {
            console.say("Commit these files and push: the workflow builds and publishes the site.")
        }
        console.say("Next: \(outcome.next)")
    }
}
