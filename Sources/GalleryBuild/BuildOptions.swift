import Foundation
package import GalleryCore
package import Loading

/// Command-line choices for one build; each overrides gallery.yml where both speak.
package struct BuildOptions: Sendable {
    /// `--output DIR`, relative to the current folder.
    package var output: String?
    /// `--refresh`: revalidate every cached URL, fresh or not.
    package var refresh = false
    /// `--offline`: send no request; build from the cache.
    package var offline = false
    /// `--full`: build in full even when nothing changed since the last build.
    package var full = false
    package var concurrency: Int?
    package var perHost: Int?
    /// `--seed URL`: the published site to start warm from (overrides `seed:`).
    package var seed: String?
    /// `--remote-cache URL`: the remote cache tier (overrides `remote_cache:`).
    package var remoteCache: String?
    /// `--shard K/N`: load and encode only this shard's photos, share them through the remote
    /// tier, and write no pages.
    package var shard: Shard?
    /// The site's secret (`GALLERYGEN_REMOTE_CACHE_KEY`, read from the environment unless given):
    /// remote cache objects and the manifest's records are signed with it, and only what it
    /// signed is taken from the remote cache or the seed.
    package var signingKey: SigningKey?
    /// Where the secrets gallery.yml names by variable (`feed.auth.env`) are read from: the
    /// process's environment, unless a caller gives its own.
    package var environment = ProcessInfo.processInfo.environment
    /// The time of day the build reads (freshness, when a thumbnail set was last used): the
    /// system's, unless a test moves its own on.
    package var clock = WallClock.system

    package init(
        output: String? = nil,
        refresh: Bool = false,
        offline: Bool = false,
        full: Bool = false,
        concurrency: Int? = nil,
        perHost: Int? = nil,
        seed: String? = nil,
        remoteCache: String? = nil,
        shard: Shard? = nil,
        signingKey: SigningKey? = SigningKey(environment: ProcessInfo.processInfo.environment)
    ) {
        self.output = output
        self.refresh = refresh
        self.offline = offline
        self.full = full
        self.concurrency = concurrency
        self.perHost = perHost
        self.seed = seed
        self.remoteCache = remoteCache
        self.shard = shard
        self.signingKey = signingKey
    }
}
