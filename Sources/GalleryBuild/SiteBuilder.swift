package import Foundation
package import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
package import Reporting
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
    private let mode: BuildMode
    private let events: EventHandler

    package init(
        siteDirectory: URL,
        options: BuildOptions = BuildOptions(),
        mode: BuildMode = .standalone,
        events: @escaping EventHandler = { _ in }
    ) {
        self.siteDirectory = siteDirectory
        self.options = options
        self.mode = mode
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
        // Every secret the build is given is taken out of all it says, as it says it.
        let redaction = try BuildSecrets.redaction(config: config, options: options)
        let said = self.events
        let events: EventHandler = { @Sendable (event: BuildEvent) -> Void in said(event.redacted(redaction)) }
        let run = {
            [options, mode, events] (shared: BuildResources) async throws(BuildError) -> (BuildReport, String?) in
            let session = try await BuildSession(
                config: config, layout: layout, options: options, resources: shared, mode: mode, events: events,
                redaction: redaction)
            return try await session.run()
        }
        let outcome: (BuildReport, String?)
        do throws(BuildError) {
            switch mode {
            case .standalone: outcome = try await BuildResources.with(run)
            case .preview(let resources, _): outcome = try await run(resources)
            }
        } catch {
            throw error.redacted(redaction)
        }
        var report = outcome.0.redacted(redaction)
        let feedSHA256 = outcome.1
        if redaction.tooShort > 0 {
            let warning =
                "\(redaction.tooShort == 1 ? "a secret" : "\(redaction.tooShort) secrets") of fewer than "
                + "\(Redaction.shortest) characters: too short to be told apart in what servers answer, so not taken "
                + "out of it; a service's real keys are longer"
            report.warn(warning, to: events)
        }
        report.seconds["total"] = (clock.now - start).seconds
        return BuildResult(report: report, config: config, layout: layout, feedSHA256: feedSHA256)
    }
}

/// Whether a build is alone in its process or one of a preview's.
package enum BuildMode: Sendable {
    /// `gallerygen build`: the build makes its resources (HTTP client, cache, libvips threads)
    /// and closes them when it ends; interrupted, it waits for what it started (transfers
    /// deleting their partial files, encodes under way), so nothing is left half-written.
    case standalone
    /// A build of `gallerygen serve`: the resources are the preview's, shared by its builds; what
    /// the loader finished is kept for the next build, and an interrupted build leaves shared
    /// loads to the build that replaced it. `supersede` is called once the build has read its
    /// feed and claimed the URLs it will load: the moment the older build it replaces may be
    /// cancelled without losing shared loads.
    case preview(BuildResources, supersede: (@Sendable () async -> Void)?)
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

    /// Why the build counts as failed, or nil: a site that would show no photo at all (every photo
    /// failed, or the feed had no usable entry; such a build writes nothing) whatever
    /// `max_failures` says; with `--strict`,
    /// any failure or stale copy; otherwise more failures than `max_failures`.
    package func failure(strict: Bool) -> String? {
        let counts = report.counts
        // Such a build wrote nothing (``BuildReport/outputKept``): the site stays as it was.
        let kept = report.outputKept ? "; nothing was written, the output is as the previous build left it" : ""
        if counts.photos == 0 {
            // A shard may have nothing to do (more shards than photo URLs).
            if (report.shard?.feedPhotos ?? 0) == 0 {
                let skipped = counts.skipped > 0 ? " (\(counts.skipped) entries skipped)" : ""
                return "the feed has no usable entry\(skipped): the site would show no photo\(kept)"
            }
        } else if counts.failed == counts.photos {
            return "all \(counts.photos) photos failed: the site would show no photo\(kept)"
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

extension BuildReport {
    /// A warning: in the report, and said to `events` as it happens (the console, a JSON line
    /// stream, `serve`).
    mutating func warn(_ warning: String, to events: SiteBuilder.EventHandler) {
        warnings.append(warning)
        events(.warning(warning))
    }
}
