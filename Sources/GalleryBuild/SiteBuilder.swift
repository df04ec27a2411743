import Foundation
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Synchronization

/// The pipeline, and the only code that knows the order of the stages:
/// config -> feed -> load -> images -> render -> write (manifest last) -> report.
///
/// Photos are loaded and processed concurrently (loads bounded by the loader, libvips work by an
/// ``ImagingPool`` as wide as the machine has cores); a photo that fails becomes a placeholder tile
/// and a report entry. Once writing starts it runs to the end, so an interrupted build leaves the
/// output as the previous complete site.
package struct SiteBuilder: Sendable {
    package typealias EventHandler = @Sendable (BuildEvent) -> Void

    package let siteDirectory: URL
    package let options: BuildOptions
    private let events: EventHandler
    private let resources: BuildResources?
    private let supersede: (@Sendable () async -> Void)?

    /// - Parameters:
    ///   - resources: shared with other builds of this process (`gallerygen serve`); without them
    ///     the build makes its own and closes them when it ends.
    ///   - supersede: called once the build has read its feed and claimed the URLs it will load:
    ///     the moment an older build it replaces may be cancelled without losing shared loads.
    package init(
        siteDirectory: URL,
        options: BuildOptions = BuildOptions(),
        resources: BuildResources? = nil,
        supersede: (@Sendable () async -> Void)? = nil,
        events: @escaping EventHandler = { _ in }
    ) {
        self.siteDirectory = siteDirectory
        self.options = options
        self.resources = resources
        self.supersede = supersede
        self.events = events
    }

    /// Builds the site. Throws ``BuildError`` when the build cannot finish; a build whose photos
    /// partly failed returns normally and says so in the report (the caller applies `--strict`).
    package func build() async throws(BuildError) -> BuildResult {
        let clock = ContinuousClock()
        let start = clock.now
        let config: SiteConfig
        let layout: SiteLayout
        do {
            config = try ConfigLoader().config(inSite: siteDirectory)
            layout = try SiteLayout(config: config, siteDirectory: siteDirectory, outputOverride: options.output)
        } catch {
            throw .configuration(error)
        }
        let run = { [options, supersede, events, resources] (shared: BuildResources) async throws(BuildError) in
            let session = try await BuildSession(
                config: config, layout: layout, options: options, resources: shared,
                waitsWhenInterrupted: resources == nil, supersede: supersede, events: events)
            return try await session.run()
        }
        var (report, feedSHA256) =
            if let resources {
                try await run(resources)
            } else {
                try await BuildResources.with(run)
            }
        report.seconds["total"] = (clock.now - start).seconds
        return BuildResult(report: report, config: config, layout: layout, feedSHA256: feedSHA256)
    }
}

/// What a finished build hands back.
package struct BuildResult: Sendable {
    package var report: BuildReport
    package var config: SiteConfig
    package var layout: SiteLayout
    /// The feed's content hash (remote and file feeds), to tell whether a re-fetched feed changed.
    package var feedSHA256: String?

    /// True when the failures should fail the build (``failure(strict:)`` says why).
    package func failsBuild(strict: Bool) -> Bool {
        failure(strict: strict) != nil
    }

    /// Why the build counts as failed, or nil: a site that shows no photo at all (every photo
    /// failed, or the feed had no usable entry) whatever `max_failures` says; with `--strict`,
    /// any failure or stale copy; otherwise more failures than `max_failures`.
    package func failure(strict: Bool) -> String? {
        let counts = report.counts
        if counts.photos == 0 {
            // A shard may have nothing to do (more shards than photo URLs).
            if (report.shard?.feedPhotos ?? 0) == 0 {
                let skipped = counts.skipped > 0 ? " (\(counts.skipped) entries skipped)" : ""
                return "the feed has no usable entry\(skipped): the site shows no photo"
            }
        } else if counts.failed == counts.photos {
            return "all \(counts.photos) photos failed: the site shows no photo"
        }
        if strict, counts.failed > 0 { return "\(counts.failed) photos failed (--strict)" }
        if strict, counts.stale > 0 { return "\(counts.stale) photos came from stale copies (--strict)" }
        if strict, let remote = report.remoteCache, remote.failures > 0 {
            return "the remote cache failed \(remote.failures == 1 ? "once" : "\(remote.failures) times") (--strict)"
        }
        if let limit = config.maxFailures, counts.failed > limit {
            return "\(counts.failed) photos failed (over max_failures: \(limit))"
        }
        return nil
    }
}
