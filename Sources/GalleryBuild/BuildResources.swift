import AsyncHTTPClient
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import NIOCore
import Synchronization

/// What the builds of one process share: one HTTP client, the disk cache and its lock, the
/// loaders (so that a build superseding another joins the loads it still needs) and the libvips
/// pool. They live in a scope, ``with(_:)``: made when it opens, closed when it ends, whatever
/// happens inside.
package final class BuildResources: Sendable {
    let client: HTTPClient
    let imagingPool: ImagingPool
    private let current = Mutex<Environment?>(nil)

    /// The loaders for one cache folder and one set of loading options.
    struct Environment: Sendable {
        struct Key: Equatable {
            var cacheDirectory: URL
            var concurrency: Int
            var perHost: Int
            var maxImageBytes: Int64
            var maxVideoBytes: Int64
            var refresh: Bool
            /// `--full`: the site's own files are read again, whatever their stamps say.
            var full = false
            var offline: Bool
            /// `remote_cache:` or `--remote-cache`; never asked with --offline.
            var remoteCache: String?
            /// The site's key, that remote objects are signed and checked with.
            var signingKey: SigningKey?
            /// The feed's secret, for requests to the feed's origin.
            var credentials: RequestCredentials?
            var clock = WallClock.system
        }

        var key: Key
        /// What a build remembers: the cache folder and the store in it, which the build hands
        /// to each stage that keeps records.
        var cache: BuildCache
        var http: HTTPLoader
        var loader: ImageLoader
        var remote: RemoteCache?
        /// Why the configured remote cache is not used (its credentials are missing).
        var remoteWarning: String?
    }

    /// Runs `body` with resources made for it, and closes them (cache, client, threads) when it
    /// returns or throws.
    package static func with<Value: Sendable, Failure: Error>(
        _ body: (BuildResources) async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let resources = BuildResources()
        do {
            let value = try await body(resources)
            await resources.shutdown()
            return value
        } catch {
            await resources.shutdown()
            throw error
        }
    }

    private init() {
        self.client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration())
        // One worker more than cores: while one reads its next original, the cores stay busy
        // (measured: 0.56 -> 0.50 of the reference's time, CPU 166% -> 182%; a second extra
        // worker only adds memory). libvips runs one thread per image (threadsPerImage).
        self.imagingPool = ImagingPool(width: ProcessInfo.processInfo.activeProcessorCount + 1)
    }

    /// One client for all builds: redirects are followed by the loader (to record them and catch
    /// loops); the per-host limit is the loader's, so the pool may open as many as it asks.
    static func clientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(30))
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
        // A refused connection fails the request at once; the loader's retry policy decides what
        // next. (Left on, every queued request would wait out the connect timeout while the pool
        // retried: minutes for a feed on a host that is down.)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// The loaders for `key`, reused while the key stays the same.
    func environment(for key: Environment.Key) throws(BuildError) -> Environment {
        if let environment = current.withLock({ $0 }), environment.key == key { return environment }
        current.withLock { $0?.cache.close() }
        let cache: BuildCache
        do {
            cache = try BuildCache(directory: key.cacheDirectory)
        } catch {
            throw BuildError(.cache, "cannot open the cache", underlying: error)
        }
        var remote: RemoteCache?
        var remoteWarning: String?
        if let location = key.remoteCache {
            switch RemoteCacheLocation.store(
                for: location, environment: ProcessInfo.processInfo.environment, client: client)
            {
            case .success(let store):
                remote = RemoteCache(store: store, signingKey: key.signingKey, concurrency: key.concurrency)
            case .failure(let unavailable): remoteWarning = unavailable.message
            }
        }
        let http = HTTPLoader(
            configuration: HTTPLoader.Configuration(
                concurrency: key.concurrency,
                perHost: key.perHost,
                maxImageBytes: key.maxImageBytes,
                maxVideoBytes: key.maxVideoBytes,
                refresh: key.refresh,
                offline: key.offline,
                credentials: key.credentials,
                clock: key.clock
            ),
            client: client,
            cache: cache.files,
            remote: remote
        )
        let loader = ImageLoader(
            configuration: ImageLoader.Configuration(
                maxImageBytes: key.maxImageBytes, maxVideoBytes: key.maxVideoBytes,
                digests: cache.digests, rereadsLocalFiles: key.full, clock: key.clock), remote: http)
        let environment = Environment(
            key: key, cache: cache, http: http, loader: loader, remote: remote,
            remoteWarning: remoteWarning)
        current.withLock { $0 = environment }
        return environment
    }

    /// Stops the loads under way, closes the cache, the HTTP client and the libvips threads.
    func shutdown() async {
        if let environment = current.withLock({ $0.take() }) {
            await environment.loader.cancelAndDrain()
            try? await environment.cache.files.persist()
            try? await environment.cache.digests.persist(pruning: false)
            // Closing checkpoints the store.
            environment.cache.close()
            // The last reference goes with it: freeing 100,000 records took 0.19 s at the end of
            // every build at 100,000 photos while a copy stayed here.
            releaseInBackground(consume environment)
        }
        try? await client.shutdown()
        await imagingPool.shutdown()
    }
}
