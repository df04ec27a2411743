import ArgumentParser
import Foundation
import GalleryBuild
import GalleryCore
import Preview

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Build, serve on 127.0.0.1, rebuild on change and reload the page.",
        discussion: """
            Watches gallery.yml, the Markdown files, the templates, a local feed and local photos.
            A change during a build supersedes it: loads the new build needs are kept, the rest are
            cancelled. Ctrl-C stops the server, the watcher and any build, and exits 0.
            """
    )

    @Argument(help: "The site folder (holding gallery.yml).", completion: .directory)
    var siteDirectory: String = "."

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8000

    @Option(help: "The address to listen on. Anything but loopback exposes the preview to the network.")
    var host: String = "127.0.0.1"

    @Option(help: "Re-fetch a remote feed every SECONDS (with revalidation) and rebuild when it changed.")
    var poll: Int?

    @Option(name: .long, help: "Write the site here instead of gallery.yml's `output`.")
    var output: String?

    @Flag(name: .shortAndLong, help: "Log every request.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        // A day at most: a longer sleep would overflow the clock's nanoseconds.
        if let poll, !(1...86_400).contains(poll) {
            throw ValidationError("--poll must be between 1 and 86400 seconds")
        }
    }

    func run() async throws {
        let server = PreviewServer(
            siteDirectory: URL(fileURLWithPath: siteDirectory, isDirectory: true),
            options: BuildOptions(output: output),
            configuration: PreviewServer.Configuration(
                host: host,
                port: port,
                pollInterval: poll.map { .seconds($0) },
                verbose: verbose
            ),
            log: { message in FileHandle.standardError.write(Data((message.terminalSafe + "\n").utf8)) }
        )
        do {
            try await server.run { url in
                FileHandle.standardOutput.write(Data("Serving the gallery at \(url) (Ctrl-C to stop)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("error: cannot serve: \("\(error)".terminalSafe)\n".utf8))
            throw ExitStatus.failed
        }
    }
}
