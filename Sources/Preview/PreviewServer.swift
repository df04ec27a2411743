package import Foundation
package import GalleryBuild
import GalleryCore
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `gallerygen serve`: builds the site, serves its output folder on 127.0.0.1, rebuilds when an
/// input changes (a change during a build supersedes it) and reloads the open pages.
///
/// The HTTP server, the file watcher, the feed poller and the reload broadcaster run as services
/// of one group, so SIGINT or SIGTERM stops them all: the build under way is cancelled (nothing is
/// written half-way) and the process ends cleanly.
package struct PreviewServer: Sendable {
    package struct Configuration: Sendable {
        package var host: String
        /// 0 picks a free port.
        package var port: Int
        /// Re-fetch a remote feed this often and rebuild when it changed.
        package var pollInterval: Duration?
        /// Log every request.
        package var verbose: Bool
        /// Live-reload streams open at once; a page past this gets 503 (and reloads by hand).
        package var maxEventStreams: Int

        package init(
            host: String = "127.0.0.1", port: Int = 8000, pollInterval: Duration? = nil, verbose: Bool = false,
            maxEventStreams: Int = 256
        ) {
            self.host = host
            self.port = port
            self.pollInterval = pollInterval
            self.verbose = verbose
            self.maxEventStreams = maxEventStreams
        }
    }

    package let siteDirectory: URL
    package let options: BuildOptions
    package let configuration: Configuration
    private let log: @Sendable (String) -> Void

    package init(
        siteDirectory: URL,
        options: BuildOptions = BuildOptions(),
        configuration: Configuration = Configuration(),
        log: @escaping @Sendable (String) -> Void
    ) {
        self.siteDirectory = siteDirectory.standardizedFileURL
        self.options = options
        self.configuration = configuration
        self.log = log
    }

    /// Builds, then serves until SIGINT/SIGTERM (or until the task is cancelled). `onReady` gets
    /// the address once the server listens.
    package func run(onReady: @escaping @Sendable (URL) -> Void = { _ in }) async throws {
        try await BuildResources.with { resources in try await serve(with: resources, onReady: onReady) }
    }

    private func serve(with resources: BuildResources, onReady: @escaping @Sendable (URL) -> Void) async throws {
        let liveReload = LiveReload(maxSubscribers: configuration.maxEventStreams)
        let loop = BuildLoop(
            siteDirectory: siteDirectory, options: options, resources: resources, liveReload: liveReload, log: log)
        let initial = await loop.rebuild(reason: "start")
        let outputDirectory = Self.outputDirectory(of: initial, siteDirectory: siteDirectory, options: options)
        let (paths, excluded) = watchedPaths(excluding: outputDirectory)
        let watcher = SiteWatcher(site: siteDirectory.standardizedFileURL, excluded: excluded, paths: paths)
        let method = watcher.method()
        switch method {
        case .notified: if configuration.verbose { log("watching the site with the system's file notifications") }
        case .polling(let reason?): log("watching the site by polling its files (\(reason))")
        case .polling(nil): break
        }
        var logger = Logger(label: "gallerygen.serve")
        logger.logLevel = .warning
        var services: [any Service] = [
            ClosureService { [watcher] in
                await cancelWhenGracefulShutdown {
                    await watcher.run(method: method) { await loop.start(reason: "change") }
                }
            }
        ]
        if let interval = configuration.pollInterval {
            services.append(
                ClosureService {
                    await cancelWhenGracefulShutdown { await FeedPoller(loop: loop, interval: interval).run() }
                })
        }
        // Last in the group, so first to hear of a shutdown: ends the event streams (which would
        // otherwise keep the server waiting) and the build under way.
        services.append(
            ClosureService {
                try? await gracefulShutdown()
                liveReload.finish()
                await loop.stop()
            })
        let router = PreviewResponder.router(
            root: outputDirectory, liveReload: liveReload, log: configuration.verbose ? log : nil, logger: logger)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [HangUpHandler()])),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            services: services,
            onServerRunning: { [configuration] channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                if let url = URL(string: "http://\(host):\(port)/") { onReady(url) }
            },
            logger: logger
        )
        do {
            try await app.runService()
        } catch {
            await loop.stop()
            throw error
        }
        await loop.stop()
    }

    /// The output folder: from the first build, or from the config, or `public` when even the
    /// config is broken (the server then shows the error until it is fixed).
    static func outputDirectory(of outcome: BuildLoop.BuildOutcome, siteDirectory: URL, options: BuildOptions) -> URL {
        if case .built(let result) = outcome { return result.layout.outputDirectory }
        if let config = try? ConfigLoader().config(inSite: siteDirectory),
            let layout = try? SiteLayout(config: config, siteDirectory: siteDirectory, outputOverride: options.output)
        {
            return layout.outputDirectory
        }
        return siteDirectory.appendingPathComponent(options.output ?? "public")
    }

    /// The site folder's inputs: everything in it except the output, the cache and hidden files
    /// (a site's theme may live outside it; its `templates` folder is added then); and the
    /// folders that are not inputs, by standardized path.
    private func watchedPaths(excluding output: URL) -> ([URL], Set<String>) {
        let config = try? ConfigLoader().config(inSite: siteDirectory)
        let cache = config.map { siteDirectory.appendingPathComponent($0.cache).standardizedFileURL.path }
        let excluded = Set([output.standardizedFileURL.path, cache].compactMap { $0 })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: siteDirectory.path)) ?? []
        var paths = names.filter { !$0.hasPrefix(".") }.map {
            siteDirectory.appendingPathComponent($0).standardizedFileURL
        }
        .filter { !excluded.contains($0.path) }
        if let templates = config?.templates {
            let theme =
                templates.hasPrefix("/")
                ? URL(fileURLWithPath: templates) : siteDirectory.appendingPathComponent(templates)
            if !theme.standardizedFileURL.path.hasPrefix(siteDirectory.path + "/") { paths.append(theme) }
        }
        return (paths.sorted { $0.path < $1.path }, excluded)
    }
}
