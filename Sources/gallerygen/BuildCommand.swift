import ArgumentParser
import Foundation
import GalleryBuild

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the site: feed, images, thumbnails, pages, manifest."
    )

    @Argument(help: "The site folder (holding gallery.yml).", completion: .directory)
    var siteDirectory: String = "."

    @Option(name: .long, help: "Write the site here instead of gallery.yml's `output`.")
    var output: String?

    @Flag(help: "Exit 1 when any photo fails.")
    var strict = false

    @Option(name: .long, help: "Write a JSON report of the build to this file.")
    var report: String?

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print every warning and failure as it happens.")
    var verbose = false

    func run() async throws {
        let console = Console(quiet: quiet, verbose: verbose)
        let site = URL(fileURLWithPath: siteDirectory, isDirectory: true)
        let options = BuildOptions(output: output, strict: strict)
        let builder = SiteBuilder(siteDirectory: site, options: options) { console.handle($0) }
        let outcome = await SignalTrap.run { () async throws(BuildError) in try await builder.build() }
        switch outcome {
        case .success(let result):
            console.finish()
            if let report { try writeReport(result.report, to: report, console: console) }
            for failure in result.report.failures {
                console.warn("entry \(failure.index)\(failure.id.map { " (id \($0))" } ?? ""): \(failure.message)")
            }
            console.say(result.report.summary)
            console.say("Site written to \(result.layout.outputDirectory.path)/index.html")
            if result.failsBuild(strict: strict) {
                console.error(
                    "\(result.report.counts.failed) photos failed" + (strict ? " (--strict)" : " (over max_failures)"))
                throw ExitStatus.failed
            }
        case .failure(let error):
            console.finish()
            if case .interrupted = error {
                console.error("interrupted; the output folder is as the previous build left it")
            } else {
                console.error(error.description)
            }
            throw ExitStatus.code(for: error)
        }
    }

    private func writeReport(_ report: BuildReport, to path: String, console: Console) throws {
        do {
            try report.encoded().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            console.error("cannot write the report to \(path): \(error.localizedDescription)")
            throw ExitStatus.failed
        }
    }
}
