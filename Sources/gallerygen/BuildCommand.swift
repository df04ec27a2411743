import ArgumentParser
import Foundation
import GalleryBuild
import Reporting

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

    @Flag(help: "Revalidate every cached URL, even those still fresh.")
    var refresh = false

    @Flag(help: "Send no request: build from the cache, failing clearly for what it lacks.")
    var offline = false

    @Flag(help: "Build in full even when nothing changed since the last build.")
    var full = false

    @Option(help: "Requests in flight at once, all hosts (overrides gallery.yml's concurrency).")
    var concurrency: Int?

    @Option(name: .customLong("per-host"), help: "Requests in flight at once to one host (overrides per_host).")
    var perHost: Int?

    @Option(
        help: ArgumentHelp(
            "Start warm from the published site at this URL (overrides gallery.yml's seed).",
            discussion: "Photos unchanged at their source take their thumbnails from it, verified by hash.",
            valueName: "url"))
    var seed: String?

    @Option(
        name: .customLong("remote-cache"),
        help: ArgumentHelp(
            "Share loads and thumbnails through this remote cache (overrides gallery.yml's remote_cache).",
            discussion:
                "An http(s) URL (GET/HEAD/PUT; token in GALLERYGEN_REMOTE_CACHE_TOKEN) or s3://bucket/prefix "
                + "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL).",
            valueName: "url"))
    var remoteCache: String?

    @Option(
        help: ArgumentHelp(
            "Build only shard K of N: load and encode its photos into the remote cache, write no pages.",
            discussion:
                "K/N from 1 (e.g. 2/4); auto reads GitLab's CI_NODE_INDEX and CI_NODE_TOTAL; auto/N reads "
                + "CI_NODE_INDEX or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.",
            valueName: "K/N"))
    var shard: String?

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print every warning and failure as it happens.")
    var verbose = false

    func validate() throws {
        if refresh && offline { throw ValidationError("--refresh and --offline contradict each other; choose one") }
        // The same ranges as gallery.yml's concurrency and per_host.
        if let concurrency, !(1...256).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 256")
        }
        if let perHost, !(1...256).contains(perHost) { throw ValidationError("--per-host must be between 1 and 256") }
        if let seed, URL(string: seed).map({ ["http", "https"].contains($0.scheme?.lowercased() ?? "") }) != true {
            throw ValidationError("--seed must be an http or https URL (the published site), got \"\(seed)\"")
        }
        if let remoteCache, let problem = RemoteCacheLocation.problem(with: remoteCache) {
            throw ValidationError(problem.replacingOccurrences(of: "`remote_cache`", with: "--remote-cache"))
        }
        if shard != nil, offline {
            throw ValidationError("--shard and --offline contradict each other: a shard writes to the remote cache")
        }
        _ = try parsedShard()
    }

    private func parsedShard() throws -> Shard? {
        guard let shard else { return nil }
        do {
            return try Shard.parse(shard, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let console = Console(quiet: quiet, verbose: verbose)
        let site = URL(fileURLWithPath: siteDirectory, isDirectory: true)
        let options = BuildOptions(
            output: output,
            refresh: refresh,
            offline: offline,
            full: full,
            concurrency: concurrency,
            perHost: perHost,
            seed: seed,
            remoteCache: remoteCache,
            shard: try parsedShard()
        )
        let builder = SiteBuilder(siteDirectory: site, options: options, events: { console.handle($0) })
        let outcome = await SignalTrap.run { () async throws(BuildError) in try await builder.build() }
        switch outcome {
        case .success(let result):
            console.finish()
            if let report {
                var written = result.report
                if let reason = result.failure(strict: strict) {
                    written.exitCode = Int(ExitStatus.failed.rawValue)
                    written.error = reason
                }
                try writeReport(written, to: report, console: console)
            }
            console.report(result.report)
            console.summarize(result.report, error: result.failure(strict: strict))
            console.say(result.report.summary)
            if let shard = result.report.shard {
                console.say(
                    "Shard \(shard.index)/\(shard.count) done: its photos are in the remote cache; no pages written")
            } else if result.report.outputKept {
                console.say("Nothing written: \(result.layout.outputDirectory.path) is as the previous build left it")
            } else {
                console.say("Site written to \(result.layout.outputDirectory.path)/index.html")
            }
            if let reason = result.failure(strict: strict) {
                console.error(reason)
                throw ExitStatus.failed
            }
        case .failure(let error):
            console.finish()
            if error.code == .interrupted {
                console.error("interrupted; the output folder is as the previous build left it")
            } else {
                console.error(error.description)
            }
            console.summarize(nil, error: error.description)
            let status = ExitStatus.code(for: error)
            if let report {
                // A failed build has a report too: CI reads why, and the counts are all zero.
                var written = BuildReport()
                written.exitCode = Int(status.rawValue)
                written.error = error.code == .interrupted ? "interrupted" : error.description
                try writeReport(written, to: report, console: console)
            }
            throw status
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
