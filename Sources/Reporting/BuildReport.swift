package import Foundation

/// What a build did: the JSON of `--report FILE` and the summary line at the end of a build.
package struct BuildReport: Sendable, Codable, Equatable {
    package struct Counts: Sendable, Codable, Equatable {
        /// Photos in the feed (after skipped entries).
        package var photos = 0
        /// Feed entries skipped for having no usable image URL.
        package var skipped = 0
        /// Distinct image URLs.
        package var urls = 0
        /// HTTP requests sent (feed and images, retries included).
        package var requests = 0
        /// Full transfers (200).
        package var downloaded = 0
        /// Revalidated unchanged (304).
        package var notModified = 0
        /// Used from the cache without a request.
        package var fresh = 0
        /// Stale copies used because the server failed.
        package var stale = 0
        /// Read from local files.
        package var local = 0
        /// Photos that became placeholder tiles.
        package var failed = 0
        /// Originals decoded and encoded by this build (the rest came from the rendition cache).
        package var processed = 0
        /// Thumbnail sets taken, verified, from the published site (`seed:`) instead of made.
        package var seeded = 0
        /// Body bytes received over HTTP.
        package var bytesTransferred: Int64 = 0
        /// Files of the output written or replaced by this build; unchanged ones are left alone.
        package var filesWritten = 0
        /// Bytes of the files written or replaced.
        package var bytesWritten: Int64 = 0
        /// Files of an earlier build removed.
        package var filesRemoved = 0
        /// Grid and photo pages rendered by this build.
        package var pagesRendered = 0
        /// Grid and photo pages found in place as this build would render them, left alone.
        package var pagesUnchanged = 0
        /// Items of the gallery that are clips (counted in ``photos`` too).
        package var videos = 0
        /// Seconds of footage this build transcoded (clips whose videos the cache had are not).
        package var footageSeconds = 0.0

        enum CodingKeys: String, CodingKey {
            case photos, skipped, urls, requests, downloaded, fresh, stale, local, failed, processed, seeded
            case notModified = "not_modified"
            case bytesTransferred = "bytes_transferred"
            case filesWritten = "files_written"
            case filesRemoved = "files_removed"
            case bytesWritten = "bytes_written"
            case pagesRendered = "pages_rendered"
            case pagesUnchanged = "pages_unchanged"
            case videos
            case footageSeconds = "footage_seconds"
        }
    }

    /// One photo that became a placeholder tile, or a feed entry that was skipped.
    package struct Failure: Sendable, Codable, Equatable {
        /// The entry's position in the feed, from 0.
        package var index: Int
        package var id: String?
        package var url: String?
        /// `feed`, `load` or `image`.
        package var stage: String
        /// What went wrong, in a few words that failures are grouped by (`timed out`, `HTTP 404`,
        /// `cannot decode`).
        package var cause: String
        /// The host of `url`, for http(s) photos.
        package var host: String?
        package var message: String

        package init(
            index: Int, id: String?, url: String?, stage: String, cause: String, host: String?, message: String
        ) {
            self.index = index
            self.id = id
            self.url = url
            self.stage = stage
            self.cause = cause
            self.host = host
            self.message = message
        }

        /// `entry 2 (id 3): photos/broken.jpg: cannot decode …`
        package var line: String {
            "entry \(index)\(id.map { " (id \($0))" } ?? ""): \(message)"
        }
    }

    /// Failures that share a stage, a cause and a host: what a person reads when 5,000 photos
    /// failed for one reason.
    package struct FailureGroup: Sendable, Equatable {
        package var stage: String
        package var cause: String
        package var host: String?
        package var count: Int
        /// The first few failures of the group, in feed order.
        package var examples: [Failure]

        /// A heading with the count, the cause and the host, then one line per example:
        /// `5000 photos failed (timed out at photos.example.org), e.g.:` …
        package var summary: String {
            let place = host.map { " at \($0)" } ?? ""
            let lines = examples.map { "\n    " + $0.line }
            let more = count > examples.count ? "\n    … and \(count - examples.count) more" : ""
            return "\(outcome) (\(cause)\(place))" + (count > 1 ? ", e.g.:" : ":") + lines.joined() + more
        }

        /// `5000 photos failed`, `1 photo skipped` (feed entries are skipped, photos fail).
        package var outcome: String {
            let what = count == 1 ? "1 photo" : "\(count) photos"
            return "\(what) \(stage == "feed" ? "skipped" : "failed")"
        }
    }

    /// The failures grouped by stage, cause and host, the largest group first.
    package func failureGroups(examples: Int = 3) -> [FailureGroup] {
        var groups: [String: FailureGroup] = [:]
        var order: [String] = []
        for failure in failures {
            let key = "\(failure.stage)\u{0}\(failure.cause)\u{0}\(failure.host ?? "")"
            if groups[key] == nil {
                order.append(key)
                groups[key] = FailureGroup(
                    stage: failure.stage, cause: failure.cause, host: failure.host, count: 0, examples: [])
            }
            groups[key]?.count += 1
            if (groups[key]?.examples.count ?? 0) < examples { groups[key]?.examples.append(failure) }
        }
        return order.enumerated().compactMap { offset, key in groups[key].map { (offset, $0) } }
            .sorted { ($1.1.count, $0.0) < ($0.1.count, $1.0) }
            .map(\.1)
    }

    /// What the remote cache tier did (`remote_cache:`); nil without one.
    package struct RemoteCacheCounts: Sendable, Codable, Equatable {
        /// The store, as configured (never with a credential).
        package var store: String
        /// URL records found, verified, in the tier.
        package var recordsFound = 0
        /// Thumbnail sets found, verified, in the tier (not encoded here).
        package var setsFound = 0
        /// Objects asked for that the tier did not have.
        package var misses = 0
        /// Objects written to the tier.
        package var uploads = 0
        /// Requests that failed and objects that failed verification.
        package var failures = 0

        package init(
            store: String, recordsFound: Int = 0, setsFound: Int = 0, misses: Int = 0, uploads: Int = 0,
            failures: Int = 0
        ) {
            self.store = store
            self.recordsFound = recordsFound
            self.setsFound = setsFound
            self.misses = misses
            self.uploads = uploads
            self.failures = failures
        }

        enum CodingKeys: String, CodingKey {
            case store, misses, uploads, failures
            case recordsFound = "records_found"
            case setsFound = "sets_found"
        }
    }

    /// One shard of a sharded build (`--shard K/N`): which, and how many photos the whole feed has.
    package struct ShardCounts: Sendable, Codable, Equatable {
        package var index: Int
        package var count: Int
        /// Photos in the whole feed; `counts.photos` are this shard's.
        package var feedPhotos: Int

        package init(index: Int, count: Int, feedPhotos: Int) {
            self.index = index
            self.count = count
            self.feedPhotos = feedPhotos
        }

        enum CodingKeys: String, CodingKey {
            case index, count
            case feedPhotos = "feed_photos"
        }
    }

    package var counts = Counts()
    /// Nothing changed since the build that published the output: nothing was written, and the
    /// counts are that build's; nothing was fetched either, but with `--refresh`, which asks
    /// about every URL first (its requests and 304s are its own).
    package var upToDate = false
    /// The build would have shown no photo (the feed had no usable entry, or every photo failed):
    /// it wrote nothing, and the output is as the previous build left it.
    package var outputKept = false
    package var remoteCache: RemoteCacheCounts?
    package var shard: ShardCounts?
    /// Seconds per stage (`feed`, `load`, `images`, `render`, `write`, `total`); loading and imaging
    /// overlap, so `load` and `images` are each the span from the first start to the last end.
    package var seconds: [String: Double] = [:]
    package var failures: [Failure] = []
    package var warnings: [String] = []
    package var output: String = ""
    /// The exit code of the build: 0 built, 1 failed, 2 configuration or usage, 130 interrupted.
    package var exitCode = 0
    /// Why the build failed (exit code not 0); nil when it did not.
    package var error: String?

    package init() {}

    enum CodingKeys: String, CodingKey {
        case counts, seconds, failures, warnings, output, error, shard
        case upToDate = "up_to_date"
        case outputKept = "output_kept"
        case exitCode = "exit_code"
        case remoteCache = "remote_cache"
    }

    /// One line for the end of a build.
    package var summary: String {
        if upToDate {
            // A --refresh build asked every URL first.
            let asked = counts.requests > 0 ? "\(counts.requests) requests (\(counts.notModified) × 304), " : ""
            return "\(counts.photos) photos, up to date: \(asked)nothing changed since the last build, 0 files written"
                + String(format: " in %.2fs", seconds["total"] ?? 0)
        }
        var parts = ["\(counts.photos) photos"]
        if counts.videos > 0 {
            parts[0] += String(
                format: " (%d of them clips, %.1f s of footage transcoded)", counts.videos, counts.footageSeconds)
        }
        if counts.failed > 0 { parts.append("\(counts.failed) failed") }
        if counts.skipped > 0 { parts.append("\(counts.skipped) entries skipped") }
        parts.append("\(counts.requests) requests (\(counts.downloaded) × 200, \(counts.notModified) × 304)")
        if counts.fresh > 0 { parts.append("\(counts.fresh) fresh from cache") }
        if counts.stale > 0 { parts.append("\(counts.stale) stale") }
        parts.append("\(Self.formatBytes(counts.bytesTransferred)) transferred")
        parts.append("\(counts.processed) encoded")
        if counts.seeded > 0 { parts.append("\(counts.seeded) from the seed") }
        if let remote = remoteCache {
            parts.append("remote cache: \(remote.setsFound) sets found, \(remote.uploads) objects written")
        }
        if let shard {
            parts.append("shard \(shard.index)/\(shard.count) of \(shard.feedPhotos) photos, no pages written")
        } else if outputKept {
            parts.append("nothing written")
        } else {
            parts.append("\(counts.filesWritten) files written")
        }
        return parts.joined(separator: ", ") + String(format: " in %.2fs", seconds["total"] ?? 0)
    }

    package static func formatBytes(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return String(format: "%.1f kB", Double(bytes) / 1e3) }
        return String(format: "%.1f MB", Double(bytes) / 1e6)
    }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
