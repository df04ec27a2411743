package import AsyncHTTPClient
package import Foundation
import GalleryConcurrency
package import GalleryCore
import NIOCore
import NIOHTTP1
import Synchronization

/// Loads http(s) URLs into the disk cache and out as verified originals: the HTTP half of the
/// Loading stage (docs/guarantees.md, "Loading and the cache").
///
/// A URL fresh in the cache (max-age, Expires) is used without a request; a stale one is
/// revalidated with its validators; a 304 keeps the body and refreshes the headers; a 5xx or a
/// network failure on revalidation serves the stale copy with a warning. Requests are bounded
/// globally and per host, retried on connection errors, 408, 429 and 5xx, and follow up to
/// ten redirects. Bodies stream to a temporary file, hashed on the way, checked for size,
/// length and image-ness, and only then move into the cache.
package final class HTTPLoader: OriginalLoading {
    package struct Configuration: Sendable {
        package var concurrency: Int
        package var perHost: Int
        package var maxImageBytes: Int64
        /// The bound on a body that is a clip (by its type, its name's extension or its first
        /// bytes): `video.max_bytes`.
        package var maxVideoBytes: Int64
        package var retry: RetryPolicy
        package var maxRedirects: Int
        /// `--refresh`: revalidate even fresh entries.
        package var refresh: Bool
        /// `--offline`: no request at all; the cache or a clear failure.
        package var offline: Bool
        package var userAgent: String
        /// How long one transfer may take (silence, the whole exchange, the body's rate).
        package var limits: TransferLimits
        /// When a failing host is left alone.
        var hostHealth = HostHealth.Configuration()
        /// The feed's secret, sent to the feed's origin only.
        package var credentials: RequestCredentials?
        /// Where the time a copy was fetched, and whether it is fresh, is read.
        package var clock: WallClock

        package init(
            concurrency: Int = 16,
            perHost: Int = 6,
            maxImageBytes: Int64 = 50_000_000,
            maxVideoBytes: Int64 = 2_000_000_000,
            retry: RetryPolicy = RetryPolicy(),
            maxRedirects: Int = 10,
            refresh: Bool = false,
            offline: Bool = false,
            userAgent: String = "gallerygen/0.1",
            limits: TransferLimits = TransferLimits(),
            credentials: RequestCredentials? = nil,
            clock: WallClock = .system
        ) {
            self.concurrency = concurrency
            self.perHost = perHost
            self.maxImageBytes = maxImageBytes
            self.maxVideoBytes = maxVideoBytes
            self.retry = retry
            self.maxRedirects = maxRedirects
            self.refresh = refresh
            self.offline = offline
            self.userAgent = userAgent
            self.limits = limits
            self.credentials = credentials
            self.clock = clock
        }
    }

    package let configuration: Configuration
    let client: HTTPClient
    let cache: DiskCache
    let counter = TransferCounter()
    let global: AsyncSemaphore
    private let hosts = Mutex<[String: AsyncSemaphore]>([:])
    let health: HostHealth
    /// The remote cache tier: asked after the local cache, told what was downloaded.
    package let remote: RemoteCache?
    /// What the remote tier holds of each URL asked this build (hash and validators), so that
    /// an unchanged record is not written again.
    let sharedVersions = Mutex<[String: String]>([:])
    /// The `Link` header of each feed document answered this build, until ``document(for:)``
    /// takes it (a `no-store` answer has no record to keep it in).
    let documentLinks = Mutex<[String: String]>([:])
    /// See ``noteListedETags(_:)``.
    let listedETags = Mutex<[String: String]>([:])

    /// - Parameters:
    ///   - client: shared by the whole build; its owner shuts it down.
    ///   - cache: an open disk cache.
    ///   - remote: the remote cache tier, if the site has one.
    package init(configuration: Configuration, client: HTTPClient, cache: DiskCache, remote: RemoteCache? = nil) {
        self.configuration = configuration
        self.client = client
        self.cache = cache
        self.remote = remote
        self.global = AsyncSemaphore(permits: max(1, configuration.concurrency))
        self.health = HostHealth(configuration: configuration.hostHealth)
    }

    /// The request counts and bytes so far.
    package var statistics: TransferStatistics { counter.current }

    package func original(for source: CanonicalURL) async throws -> Original {
        try await load(source, expectsImage: true)
    }

    /// A feed document: the same cache and revalidation as images, any content type; `link` is
    /// its `Link` header (as sent, or as kept from the last 200 when this answer was a 304 or
    /// no request was needed).
    package func document(for source: CanonicalURL) async throws -> (data: Data, original: Original, link: String?) {
        let original = try await load(source, expectsImage: false)
        defer { if original.isTransient { try? FileManager.default.removeItem(atPath: original.filePath) } }
        guard let data = FileManager.default.contents(atPath: original.filePath) else {
            throw LoadingError(.cache, url: source.description, "cannot read the cached feed")
        }
        let link = documentLinks.withLock { $0.removeValue(forKey: source.description) }
        return (data, original, link ?? cache.record(for: source.description)?.link)
    }

    /// The ETags a listing (an S3 bucket's, a WebDAV folder's) gave its images, by URL: a cached
    /// copy whose ETag is the listed one is used without a request, as a fresh one is.
    package func noteListedETags(_ etags: [CanonicalURL: String]) {
        listedETags.withLock { listed in
            for (url, etag) in etags where !Self.opaque(etag).isEmpty { listed[url.description] = Self.opaque(etag) }
        }
    }

    /// Forgets what earlier feed reads said (listed ETags, pages' Link headers): a build in
    /// `serve` starts from its own listing.
    package func forgetListings() {
        listedETags.withLock { $0.removeAll() }
        documentLinks.withLock { $0.removeAll() }
    }

    /// An ETag's opaque part: without `W/` and quotes (a WebDAV listing writes it bare where
    /// the GET's header quotes it).
    static func opaque(_ etag: String) -> String {
        var text = Substring(etag.trimmingWhitespace())
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    package func availableOriginal(for source: CanonicalURL) -> Original? {
        let now = configuration.clock.now
        guard let record = cache.record(for: source.description) else { return nil }
        let origin: Original.Origin
        if configuration.offline {
            origin = .offline
        } else if !configuration.refresh, record.isFresh(at: now) {
            origin = .fresh
        } else if !configuration.refresh, let etag = record.etag,
            let listed = listedETags.withLock({ $0[source.description] }), Self.opaque(etag) == listed
        {
            origin = .fresh
        } else {
            return nil
        }
        guard cache.verifiedBlob(of: record) != nil else { return nil }
        return use(record, origin: origin, at: now, source: source)
    }

    package func cachedSHA256(for source: CanonicalURL) -> String? {
        cache.record(for: source.description)?.sha256
    }

    package func original(for source: CanonicalURL, known: @escaping @Sendable () async -> KnownOriginal?)
        async throws -> Original
    {
        try await load(source, expectsImage: true, known: known)
    }

    package func freshCopy(of damaged: Original) async throws -> Original {
        // A seeded or shared original's bytes were never here, nor a no-store one's (a temporary
        // file, gone): a blob of that hash belongs to another URL.
        if !damaged.origin.isBodiless, !damaged.isTransient { cache.discardBlob(damaged.sha256) }
        if configuration.offline {
            throw LoadingError(
                .offlineMiss, url: damaged.source.description,
                "the cached copy is damaged, and --offline sends no request; build once online")
        }
        return try await download(damaged.source, expectsImage: true)
    }

    // MARK: Cache decisions

    /// The local cache first (fresh, or revalidated), then the remote tier's record of the URL
    /// (fresh there: no request; else revalidated with its validators), then what `known` says
    /// (the seed), and last a download.
    private func load(
        _ source: CanonicalURL, expectsImage: Bool, known: (@Sendable () async -> KnownOriginal?)? = nil
    ) async throws -> Original {
        if let available = availableOriginal(for: source) { return available }
        let key = source.description
        let now = configuration.clock.now
        if let record = cache.record(for: key), let blobModified = cache.verifiedBlob(of: record) {
            return try await revalidate(source, copy: record, blobModified: blobModified, expectsImage: expectsImage)
        }
        if configuration.offline {
            throw LoadingError(
                .offlineMiss, url: key, "not in the cache, and --offline sends no request; build once online")
        }
        if expectsImage, let shared = await sharedRecord(for: key) {
            if !configuration.refresh, shared.isFresh(at: now, shared: true) {
                return bodiless(shared, source: source, origin: .shared)
            }
            if shared.hasValidators, let original = try await revalidate(source, against: shared, refreshing: true) {
                return original
            }
        }
        if expectsImage, let known, let found = await known(), !found.validators.isEmpty {
            let time = now.timeIntervalSince1970
            let published = CacheRecord(
                url: key, finalURL: key, status: 200, etag: found.validators.etag,
                lastModified: found.validators.lastModified, sha256: found.sha256, size: 0, blobModified: 0,
                responseTime: time, fetchedAt: time, validatedAt: time, lastUsed: time)
            if let original = try await revalidate(source, against: published) { return original }
        }
        return try await download(source, expectsImage: expectsImage)
    }

    /// Asks whether the cached copy of `source` (`record`, its blob vouched for, as it was
    /// modified at `blobModified`) is still the server's: a 304 refreshes the record; a 200
    /// replaces the copy; a failure that allows it (a 5xx, no answer) serves the copy as
    /// stale, with a warning. `failed`: the first attempt's retryable error, when a lane made it.
    private func revalidate(
        _ source: CanonicalURL, copy record: CacheRecord, blobModified: Double, expectsImage: Bool,
        after failed: LoadingError? = nil
    ) async throws -> Original {
        let key = source.description
        let now = configuration.clock.now
        do {
            switch try await fetch(source, revalidating: record, expectsImage: expectsImage, after: failed) {
            case .notModified(let response):
                var refreshed = record.refreshed(by: response, at: configuration.clock.now)
                // A 304 that names the next page again replaces the kept Link.
                if !expectsImage, let link = documentLinks.withLock({ $0[key] }) { refreshed.link = link }
                refreshed.blobModified = blobModified
                cache.store(refreshed)
                return use(refreshed, origin: .revalidated, at: now, source: source)
            case .downloaded(let original):
                if expectsImage { await share(key) }
                return original
            }
        } catch let error as LoadingError where error.allowsStaleCopy {
            return staleCopy(record, source: source, because: error, at: now)
        }
    }

    /// The cached copy served when asking about it failed in a way that allows it, with a warning.
    func staleCopy(_ record: CacheRecord, source: CanonicalURL, because error: LoadingError, at now: Date) -> Original {
        var stale = use(record, origin: .stale, at: now, source: source)
        stale.warning = "\(error.message); using the copy cached \(Self.describeAge(of: record, at: now))"
        return stale
    }

    /// The copies on plain-HTTP hosts over keep-alive lanes (``askOverLanes(_:of:answered:)``),
    /// the others meanwhile one by one (``askOneByOne(_:of:width:answered:)``), and what the lanes
    /// leave one by one after them. Cancelled, they stop taking URLs.
    package func revalidateCopies(
        of sources: [CanonicalURL], width: Int, answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> CopyAnswers {
        guard !configuration.offline, !sources.isEmpty else { return CopyAnswers() }
        var byOrigin: [String: [Int]] = [:]
        var others: [(position: Int, failed: LoadingError?)] = []
        for (position, source) in sources.enumerated() {
            if Self.goesOverLane(source.url) {
                byOrigin[Self.hostKey(source.url), default: []].append(position)
            } else {
                others.append((position, nil))
            }
        }
        async let laned = askOverLanes(byOrigin, of: sources, answered: answered)
        var all = CopyAnswers(count: sources.count)
        await askOneByOne(others, of: sources, width: width, answered: answered).add(to: &all)
        let lanes = await laned
        lanes.add(to: &all)
        if !lanes.left.isEmpty, !Task.isCancelled {
            await askOneByOne(lanes.left, of: sources, width: width, answered: answered).add(to: &all)
        }
        return all
    }

    /// What a part of the pass heard: answers by position, how many left their copy as the cache
    /// had it, and the positions left for the usual path (with the first attempt's error, when
    /// one was made).
    struct PassAnswers: Sendable {
        var list: [(position: Int, answer: Result<Original, any Error>)] = []
        var unchanged = 0
        var left: [(position: Int, failed: LoadingError?)] = []

        func add(to all: inout CopyAnswers) {
            for (position, answer) in list { all[position] = answer }
            all.unchanged += unchanged
        }
    }

    /// The usual path over `positions`: a few workers (``workers(for:width:perHost:)``), each
    /// taking the next URL in turn and keeping its answers in a list of its own: no task, lock or
    /// actor per URL.
    private func askOneByOne(
        _ positions: [(position: Int, failed: LoadingError?)], of sources: [CanonicalURL], width: Int,
        answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> PassAnswers {
        guard !positions.isEmpty else { return PassAnswers() }
        let queue = WorkQueue()
        let workers = Self.workers(
            for: positions.map { sources[$0.position] }, width: width, perHost: max(1, configuration.perHost))
        return await withTaskGroup(of: PassAnswers.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var answers = PassAnswers()
                    while !Task.isCancelled {
                        let next = queue.next.add(1, ordering: .relaxed).oldValue
                        guard next < positions.count else { break }
                        let (index, failed) = positions[next]
                        let source = sources[index]
                        // Left to the usual load: no copy (any more), or one that needs no asking.
                        guard !source.isFile, let record = self.cache.record(for: source.description),
                            let blobModified = self.cache.verifiedBlob(of: record)
                        else { continue }
                        do {
                            let original = try await self.revalidate(
                                source, copy: record, blobModified: blobModified, expectsImage: true, after: failed)
                            answers.list.append((index, .success(original)))
                            if Self.leftAsItWas(record, after: original) { answers.unchanged += 1 }
                            answered(index, original.sha256 == record.sha256 ? nil : original)
                        } catch {
                            answers.list.append((index, .failure(error)))
                            answered(index, nil)
                        }
                    }
                    return answers
                }
            }
            var all = PassAnswers()
            for await part in group {
                all.list += part.list
                all.unchanged += part.unchanged
            }
            return all
        }
    }

    /// Workers for ``revalidateCopies(of:width:answered:)``: `width`, but no more than the hosts
    /// of `sources` have slots (`perHost` each), since one more would only wait for a slot (a
    /// switch of threads per request).
    static func workers(for sources: [CanonicalURL], width: Int, perHost: Int) -> Int {
        let width = max(1, min(width, sources.count))
        // The hosts as the per-host semaphores key them (``hostLimit(for:)``).
        var origins = Set<String>()
        for source in sources {
            origins.insert(hostKey(source.url))
            if origins.count * perHost >= width { return width }
        }
        return min(width, origins.count * perHost)
    }

    /// The next URL a worker of ``revalidateCopies(of:width:answered:)`` takes.
    private final class WorkQueue: Sendable {
        let next = Atomic<Int>(0)
    }

    /// A conditional request with validators recorded elsewhere (the remote tier, a published
    /// site's manifest): a 304 vouches for the recorded hash, without the bytes. Nil when the
    /// request failed: the validators were only a shortcut, and the caller loads as usual.
    /// `refreshing`: the record is the remote tier's, written back with the 304's headers.
    private func revalidate(_ source: CanonicalURL, against record: CacheRecord, refreshing: Bool = false)
        async throws -> Original?
    {
        let result: FetchResult
        do {
            result = try await fetch(source, revalidating: record, expectsImage: true)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
        switch result {
        case .notModified(let head):
            if refreshing { await refreshShared(record, by: head) }
            return bodiless(record, source: source, origin: .seeded)
        case .downloaded(let original):
            await share(source.description)
            return original
        }
    }

    /// An original known by its hash only: its blob is in this cache only if other URLs had the
    /// same bytes.
    private func bodiless(_ record: CacheRecord, source: CanonicalURL, origin: Original.Origin) -> Original {
        Original(
            source: source, inBlobs: cache.blobFolder, sha256: record.sha256, byteCount: record.size,
            contentType: record.contentType, validators: record.validators, origin: origin)
    }

    /// An unconditional GET into the cache: a 304 to it is the server's error.
    private func download(_ source: CanonicalURL, expectsImage: Bool) async throws -> Original {
        switch try await fetch(source, revalidating: nil, expectsImage: expectsImage) {
        case .downloaded(let original):
            if expectsImage { await share(source.description) }
            return original
        case .notModified:
            throw LoadingError(
                .httpStatus, url: source.description, "the server answered 304 to a request that was not conditional",
                status: 304)
        }
    }

    /// The original of `record`, whose blob ``DiskCache/verifiedBlob(of:)`` has vouched for.
    func use(_ record: CacheRecord, origin: Original.Origin, at now: Date, source: CanonicalURL)
        -> Original
    {
        cache.markUsed(record, at: now)
        return Original(
            source: source,
            inBlobs: cache.blobFolder,
            sha256: record.sha256,
            byteCount: record.size,
            contentType: record.contentType,
            validators: record.validators,
            origin: origin
        )
    }

    static func describeAge(of record: CacheRecord, at now: Date) -> String {
        let hours = (now.timeIntervalSince1970 - record.fetchedAt) / 3600
        return hours < 1 ? "less than an hour ago" : String(format: "%.0f hours ago", hours)
    }

    // MARK: Transfers

    enum FetchResult {
        case notModified(ResponseHead)
        case downloaded(Original)
    }

    /// What the cache keeps of a response's head.
    struct ResponseHead {
        var status: Int
        var headers: HTTPHeaders
        var finalURL: String
        var redirects: [String]
    }

    /// GET with redirects and retries; a 200 is streamed into the cache. `failed`: the first
    /// attempt's retryable error, when a lane made that attempt: the retries go on from it.
    private func fetch(
        _ source: CanonicalURL, revalidating record: CacheRecord?, expectsImage: Bool, after failed: LoadingError? = nil
    ) async throws -> FetchResult {
        var url = source.url
        var visited: [String] = [source.description]
        for hop in 0...configuration.maxRedirects {
            let outcome = try await withRetries(url: url, after: hop == 0 ? failed : nil) {
                try await self.attempt(
                    url, source: source, record: record, expectsImage: expectsImage,
                    redirects: Array(visited.dropFirst()))
            }
            switch outcome {
            case .redirect(let location):
                // A Location that repeats the feed's secret is kept without it (it is added again to a
                // request to the feed's origin, and to no other).
                guard let found = URL(string: location, relativeTo: url)?.absoluteURL,
                    let canonical = CanonicalURL(configuration.credentials?.stripped(found) ?? found)
                else {
                    throw LoadingError(
                        .network, url: url.absoluteString,
                        "redirected to an unusable location \"\(redacted(String(location.prefix(200))))\"")
                }
                if configuration.credentials?.mayRedirect(to: canonical.url) == false {
                    throw LoadingError(
                        .redirectLoop, url: url.absoluteString,
                        "redirected to another host with the feed's secret in the address; not followed, so that "
                            + "the secret does not go there")
                }
                guard !visited.contains(canonical.description) else {
                    throw LoadingError(
                        .redirectLoop,
                        url: source.description,
                        "redirect loop: \((visited + [canonical.description]).joined(separator: " -> "))"
                    )
                }
                visited.append(canonical.description)
                url = canonical.url
            case .notModified(let head):
                return .notModified(head)
            case .downloaded(let original):
                return .downloaded(original)
            }
        }
        throw LoadingError(
            .tooManyRedirects, url: source.description, "more than \(configuration.maxRedirects) redirects")
    }

    enum AttemptOutcome {
        case redirect(String)
        case notModified(ResponseHead)
        case downloaded(Original)
    }

    /// Runs `attempt` until it succeeds, fails for good, or the attempts run out; waits between
    /// attempts without holding a connection slot. `failed`: an attempt already made failed so.
    func withRetries<Outcome>(url: URL, after failed: LoadingError? = nil, _ attempt: () async throws -> Outcome)
        async throws -> Outcome
    {
        var number = 1
        if let failed {
            guard number < configuration.retry.attempts,
                let delay = configuration.retry.delay(
                    afterAttempt: number, retryAfter: failed.retryAfter, now: configuration.clock.now)
            else { throw failed }
            try await Task.sleep(for: delay)
            number += 1
        }
        while true {
            do {
                return try await attempt()
            } catch let error as LoadingError where error.isRetryable && number < configuration.retry.attempts {
                guard
                    let delay = configuration.retry.delay(
                        afterAttempt: number, retryAfter: error.retryAfter, now: configuration.clock.now)
                else {
                    throw error
                }
                try await Task.sleep(for: delay)
                number += 1
            }
        }
    }

    /// Whether asking about `record`'s copy left it as the cache had it: `original` confirmed by
    /// the host (a 304), with the same bytes, validators and type. The worker's pass and the
    /// lanes count these as the answers that changed nothing.
    static func leftAsItWas(_ record: CacheRecord, after original: Original) -> Bool {
        original.origin == .revalidated && original.sha256 == record.sha256
            && original.validators == record.validators && original.contentType == record.contentType
    }

    static func hostKey(_ url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? 0)"
    }

    private func hostLimit(for url: URL) -> AsyncSemaphore {
        hostLimit(forKey: Self.hostKey(url))
    }

    /// The per-host slots of the host ``hostKey(_:)`` names `host`.
    func hostLimit(forKey host: String) -> AsyncSemaphore {
        hosts.withLock { hosts in
            if let semaphore = hosts[host] { return semaphore }
            let semaphore = AsyncSemaphore(permits: max(1, configuration.perHost))
            hosts[host] = semaphore
            return semaphore
        }
    }

    /// One request, holding a per-host and a global slot for its whole transfer. A host that keeps
    /// failing is checked before the wait for a slot and again after it: requests queued behind
    /// the failing ones then fail at once instead of each timing out in turn.
    private func attempt(
        _ url: URL, source: CanonicalURL, record: CacheRecord?, expectsImage: Bool, redirects: [String]
    )
        async throws -> AttemptOutcome
    {
        let host = Self.hostKey(url)
        let hostName = url.host ?? "the server"
        try health.check(host: host, displayName: hostName, url: url.absoluteString)
        let hostLimit = hostLimit(for: url)
        try await hostLimit.acquire()
        do {
            try await global.acquire()
        } catch {
            hostLimit.release()
            throw error
        }
        do {
            try health.check(host: host, displayName: hostName, url: url.absoluteString)
            let outcome = try await send(
                url, source: source, record: record, expectsImage: expectsImage, redirects: redirects)
            health.succeeded(host: host)
            global.release()
            hostLimit.release()
            return outcome
        } catch {
            if let error = error as? LoadingError {
                // An answer, even an error, shows the host is there; silence and refusals do not.
                if error.isHostFailure {
                    health.failed(host: host, because: error)
                } else if error.code != .hostDown {
                    health.succeeded(host: host)
                }
            }
            global.release()
            hostLimit.release()
            throw error
        }
    }
}

extension LoadingError {
    /// Network trouble and server errors: worth another attempt, and on revalidation a reason to
    /// serve the stale copy.
    var isRetryable: Bool {
        switch code {
        case .network, .truncated, .timedOut: true
        case .httpStatus: status.map(RetryPolicy.isRetryable(status:)) ?? false
        default: false
        }
    }

    var allowsStaleCopy: Bool {
        switch code {
        case .network, .truncated, .timedOut, .tooSlow, .hostDown: true
        case .httpStatus: status.map { (500...599).contains($0) } ?? false
        default: false
        }
    }
}

extension LoadingError {
    /// The host did not answer at all: refused, unreachable or silent.
    var isHostFailure: Bool { code == .network || code == .timedOut }
}

extension CacheRecord {
    /// The record after a 304: the new head's headers replace the stored ones (RFC 9111 §4.3.4).
    func refreshed(by head: HTTPLoader.ResponseHead, at now: Date) -> CacheRecord {
        var record = self
        let headers = head.headers
        func update(_ name: String, _ keyPath: WritableKeyPath<CacheRecord, String?>) {
            if let value = headers.first(name: name) { record[keyPath: keyPath] = value }
        }
        update("ETag", \.etag)
        update("Last-Modified", \.lastModified)
        update("Date", \.date)
        if !headers["Cache-Control"].isEmpty {
            record.cacheControl = headers["Cache-Control"].joined(separator: ", ")
        }
        update("Expires", \.expires)
        update("Vary", \.vary)
        record.age = headers.first(name: "Age")
        record.responseTime = now.timeIntervalSince1970
        record.validatedAt = now.timeIntervalSince1970
        return record
    }
}
