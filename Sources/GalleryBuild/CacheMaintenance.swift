package import Foundation
import GalleryCore
import Loading

/// `gallerygen cache info` and `gallerygen cache prune`: what a site's cache holds, and shrinking
/// it to `cache_limit`.
package struct CacheMaintenance: Sendable {
    package let siteDirectory: URL

    package init(siteDirectory: URL) {
        self.siteDirectory = siteDirectory
    }

    /// What the cache holds and its limit.
    package func info() async throws(BuildError) -> (info: CacheInfo, limit: Int64?, folder: URL) {
        let (config, cache, folder) = try open()
        defer { cache.close() }
        return (await cache.info(), config.cacheLimit, folder)
    }

    /// Removes least-recently-used entries down to `limit` (default: `cache_limit`; without one,
    /// only what no record names). Returns the bytes removed and what is left.
    package func prune(to limit: Int64? = nil) async throws(BuildError) -> (removed: Int64, left: CacheInfo) {
        let (config, cache, _) = try open()
        defer { cache.close() }
        do {
            let (removed, _) = try await cache.evict(toFit: limit ?? config.cacheLimit ?? Int64.max)
            return (removed, await cache.info())
        } catch {
            throw BuildError(.cache, "cannot prune the cache", underlying: error)
        }
    }

    private func open() throws(BuildError) -> (SiteConfig, BuildCache, URL) {
        let config: SiteConfig
        let layout: SiteLayout
        do {
            config = try ConfigLoader().config(inSite: siteDirectory)
            layout = try SiteLayout(config: config, siteDirectory: siteDirectory)
        } catch {
            throw .configuration(error)
        }
        do {
            return (config, try BuildCache(directory: layout.cacheDirectory), layout.cacheDirectory)
        } catch {
            throw BuildError(.cache, "cannot open the cache", underlying: error)
        }
    }
}
