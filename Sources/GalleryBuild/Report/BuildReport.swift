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
        public var message: String
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
