import Foundation

/// What a build did: the JSON of `--report FILE` and the summary line at the end of a build.
public struct BuildReport: Sendable, Codable, Equatable {
    public struct Counts: Sendable, Codable, Equatable {
        /// Photos in the feed (after skipped entries).
        public var photos = 0
        /// Feed entries skipped for having no usable image URL.
        public var skipped = 0
        /// Distinct image URLs.
        public var urls = 0
        /// HTTP requests sent (feed and images, retries included).
        public var requests = 0
        /// Full transfers (200).
        public var downloaded = 0
        /// Revalidated unchanged (304).
        public var notModified = 0
        /// Used from the cache without a request.
        public var fresh = 0
        /// Stale copies used because the server failed.
        public var stale = 0
        /// Read from local files.
        public var local = 0
        /// Photos that became placeholder tiles.
        public var failed = 0
        /// Originals decoded and encoded by this build (the rest came from the rendition cache).
        public var processed = 0
        /// Body bytes received over HTTP.
        public var bytesTransferred: Int64 = 0
        /// Files of the output written or replaced by this build; unchanged ones are left alone.
        public var filesWritten = 0
        /// Bytes of the files written or replaced.
        public var bytesWritten: Int64 = 0
        /// Files of an earlier build removed.
        public var filesRemoved = 0

        enum CodingKeys: String, CodingKey {
            case photos, skipped, urls, requests, downloaded, fresh, stale, local, failed, processed
            case notModified = "not_modified"
            case bytesTransferred = "bytes_transferred"
            case filesWritten = "files_written"
            case filesRemoved = "files_removed"
            case bytesWritten = "bytes_written"
        }
    }

    /// One photo that became a placeholder tile, or a feed entry that was skipped.
    public struct Failure: Sendable, Codable, Equatable {
        /// The entry's position in the feed, from 0.
        public var index: Int
        public var id: String?
        public var url: String?
        /// `feed`, `load` or `image`.
        public var stage: String
        /// What went wrong, in a few words that failures are grouped by (`timed out`, `HTTP 404`,
        /// `cannot decode`).
        public var cause: String
        /// The host of `url`, for http(s) photos.
        public var host: String?
        public var message: String

        /// `entry 2 (id 3): photos/broken.jpg: cannot decode …`
        public var line: String {
            "entry \(index)\(id.map { " (id \($0))" } ?? ""): \(message)"
        }
    }

    /// Failures that share a stage, a cause and a host: what a person reads when 5,000 photos
    /// failed for one reason.
    public struct FailureGroup: Sendable, Equatable {
        public var stage: String
        public var cause: String
        public var host: String?
        public var count: Int
        /// The first few failures of the group, in feed order.
        public var examples: [Failure]

        /// A heading with the count, the cause and the host, then one line per example:
        /// `5000 photos failed (timed out at photos.example.org), e.g.:` …
        public var summary: String {
            let what = count == 1 ? "1 photo" : "\(count) photos"
            let verb = stage == "feed" ? "skipped" : "failed"
            let place = host.map { " at \($0)" } ?? ""
            let lines = examples.map { "\n    " + $0.line }
            let more = count > examples.count ? "\n    … and \(count - examples.count) more" : ""
            return "\(what) \(verb) (\(cause)\(place))" + (count > 1 ? ", e.g.:" : ":") + lines.joined() + more
        }
    }

    /// The failures grouped by stage, cause and host, the largest group first.
    public func failureGroups(examples: Int = 3) -> [FailureGroup] {
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

    public var counts = Counts()
    /// Seconds per stage (`feed`, `load`, `images`, `render`, `write`, `total`); loading and imaging
    /// overlap, so `load` and `images` are each the span from the first start to the last end.
    public var seconds: [String: Double] = [:]
    public var failures: [Failure] = []
    public var warnings: [String] = []
    public var output: String = ""

    public init() {}

    /// One line for the end of a build.
    public var summary: String {
        var parts = ["\(counts.photos) photos"]
        if counts.failed > 0 { parts.append("\(counts.failed) failed") }
        if counts.skipped > 0 { parts.append("\(counts.skipped) entries skipped") }
        parts.append("\(counts.requests) requests (\(counts.downloaded) × 200, \(counts.notModified) × 304)")
        if counts.fresh > 0 { parts.append("\(counts.fresh) fresh from cache") }
        if counts.stale > 0 { parts.append("\(counts.stale) stale") }
        parts.append("\(Self.formatBytes(counts.bytesTransferred)) transferred")
        parts.append("\(counts.processed) encoded")
        parts.append("\(counts.filesWritten) files written")
        return parts.joined(separator: ", ") + String(format: " in %.2fs", seconds["total"] ?? 0)
    }

    public static func formatBytes(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return String(format: "%.1f kB", Double(bytes) / 1e3) }
        return String(format: "%.1f MB", Double(bytes) / 1e6)
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
