import Foundation
package import GalleryCore
import Synchronization

/// The URL records of the remote cache tier: what one machine learned of a photo URL, so that
/// another revalidates (or, while it is fresh, trusts) it instead of downloading it.
extension HTTPLoader {
    /// The remote tier's record of `url`, checked; nil when there is none or it is unusable.
    func sharedRecord(for url: String) async -> CacheRecord? {
        guard let remote else { return nil }
        let name = Self.sharedName(of: url)
        let decoded: CacheRecord?? = await remote.read(.url, name) { payload in
            .some(try? JSONDecoder().decode(CacheRecord.self, from: payload))
        }
        guard let decoded else { return nil }
        guard let record = decoded, record.url == url, record.status == 200, record.size > 0,
            isLowercaseHex(record.sha256, length: 64)
        else {
            remote.reject(.url, name, because: "were not usable URL records; replaced")
            return nil
        }
        sharedVersions.withLock { $0[url] = Self.version(of: record) }
        return record
    }

    /// Tells the remote tier what the local cache now knows of `url` (after a download), unless
    /// it already holds that.
    func share(_ url: String) async {
        guard let record = cache.record(for: url) else { return }
        await share(record)
    }

    /// Writes `record` to the remote tier unless it holds one of the same bytes and validators
    /// (or `always`). A response for one user only (`private`), not to be stored, or varying
    /// on anything (`Vary: *`) is never shared.
    func share(_ record: CacheRecord, always: Bool = false) async {
        guard let remote else { return }
        var record = record
        let url = record.url
        let control = CacheControl(record.cacheControl)
        guard !control.isPrivate, !control.noStore, record.vary?.trimmingWhitespace() != "*" else { return }
        let version = Self.version(of: record)
        guard always || sharedVersions.withLock({ $0[url] }) != version else { return }
        // What only this machine's cache means.
        record.blobModified = 0
        record.lastUsed = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let payload = try? encoder.encode(record) else { return }
        await remote.write(.url, Self.sharedName(of: url), payload: payload)
        sharedVersions.withLock { $0[url] = version }
    }

    /// Makes sure the remote tier has a record of `source` (a shard whose local cache already
    /// had the photo did not download it, so wrote nothing): asks, and writes if it has none.
    package func shareIfMissing(_ source: CanonicalURL) async {
        guard let remote, !source.isFile, let record = cache.record(for: source.description) else { return }
        if sharedVersions.withLock({ $0[record.url] }) == Self.version(of: record) { return }
        if await remote.contains(.url, Self.sharedName(of: record.url)) == false { await share(record.url) }
    }

    /// After a 304 to a remote record's validators: the record with the new response's headers
    /// goes back to the tier when they give it a lifetime (other machines then trust it without
    /// a request until it runs out); without one, writing it back would gain nothing.
    func refreshShared(_ record: CacheRecord, by head: ResponseHead) async {
        let refreshed = record.refreshed(by: head, at: configuration.clock.now)
        let control = CacheControl(refreshed.cacheControl)
        guard control.sharedMaxAge != nil || control.maxAge != nil || refreshed.expires != nil else { return }
        await share(refreshed, always: true)
    }

    static func sharedName(of url: String) -> String {
        sha256Hex(of: url)
    }

    private static func version(of record: CacheRecord) -> String {
        "\(record.sha256) \(record.etag ?? "") \(record.lastModified ?? "")"
    }
}
