import Foundation
import GalleryCore

/// The URL records of the remote cache tier: what one machine learned of a photo URL, so that
/// another revalidates (or, while it is fresh, trusts) it instead of downloading it.
extension HTTPLoader {
    /// The remote tier's record of `url`, checked; nil when there is none or it is unusable.
    func sharedRecord(for url: String) async -> CacheRecord? {
        guard let remote else { return nil }
        let name = Self.sharedName(of: url)
        guard let payload = await remote.read(.url, name) else { return nil }
        guard let record = try? JSONDecoder().decode(CacheRecord.self, from: payload), record.url == url,
            record.status == 200, record.size > 0, Self.isHex(record.sha256, length: 64)
        else {
            remote.reject(.url, name, because: "were not usable URL records; replaced")
            return nil
        }
        sharedVersions.withLock { $0[url] = Self.version(of: record) }
        return record
    }

    /// Tells the remote tier what the local cache now knows of `url` (after a download), unless
    /// it already holds that. A response for one user only (`private`) or not to be stored is
    /// never shared.
    func share(_ url: String) async {
        guard let remote, var record = cache.record(for: url) else { return }
        let control = CacheControl(record.cacheControl)
        guard !control.isPrivate, !control.noStore else { return }
        let version = Self.version(of: record)
        guard sharedVersions.withLock({ $0[url] }) != version else { return }
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

    static func sharedName(of url: String) -> String {
        sha256Hex(of: url)
    }

    private static func version(of record: CacheRecord) -> String {
        "\(record.sha256) \(record.etag ?? "") \(record.lastModified ?? "")"
    }

    static func isHex(_ text: String, length: Int) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
