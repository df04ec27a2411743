import Foundation
import GalleryConcurrency
package import GalleryCore

/// The Loading stage: canonical URL in, verified ``Original`` on disk out.
///
/// Local files are read in place; http(s) URLs go through ``HTTPLoader`` (the disk cache and
/// HTTP revalidation). Through ``original(for:)`` every URL is loaded at most once for the
/// loader's life, however many photos name it; ``revalidateCopies(of:width:answered:)`` asks
/// outside that, for a build alone with its loader.
package final class ImageLoader: OriginalLoading {
    package struct Configuration: Sendable {
        package var maxImageBytes: Int64
        /// `video.max_bytes`: the bound on a file that is a clip.
        package var maxVideoBytes: Int64

        /// The hashes of the site's own files earlier builds read (nil: each is read again).
        package var digests: LocalDigests?
        /// Every file is read again, whatever ``digests`` holds, and its hash kept (`--full`).
        package var rereadsLocalFiles: Bool
        /// When a file's stamp was taken, for ``LocalDigests``.
        package var clock: WallClock

        package init(
            maxImageBytes: Int64 = 50_000_000, maxVideoBytes: Int64 = 2_000_000_000, digests: LocalDigests? = nil,
            rereadsLocalFiles: Bool = false, clock: WallClock = .system
        ) {
            self.maxImageBytes = maxImageBytes
            self.maxVideoBytes = maxVideoBytes
            self.digests = digests
            self.rereadsLocalFiles = rereadsLocalFiles
            self.clock = clock
        }
    }

    private let local: LocalFileSource
    private let remote: (any OriginalLoading)?
    private let coalescer = TaskCoalescer<CanonicalURL, Original>()

    /// - Parameter remote: loads http(s) URLs; without one they fail with a clear error.
    package init(configuration: Configuration, remote: (any OriginalLoading)? = nil) {
        self.local = LocalFileSource(
            maxImageBytes: configuration.maxImageBytes, maxVideoBytes: configuration.maxVideoBytes,
            digests: configuration.digests, rereads: configuration.rereadsLocalFiles, clock: configuration.clock)
        self.remote = remote
    }

    package func original(for source: CanonicalURL) async throws -> Original {
        try await load(source, known: nil)
    }

    package func original(for source: CanonicalURL, known: @escaping @Sendable () async -> KnownOriginal?)
        async throws -> Original
    {
        try await load(source, known: known)
    }

    private func load(_ source: CanonicalURL, known: (@Sendable () async -> KnownOriginal?)?) async throws
        -> Original
    {
        try await coalescer.value(for: source) { [local, remote] in
            if source.isFile { return try local.original(for: source) }
            guard let remote else {
                throw LoadingError(.unsupportedScheme, url: source.description, "this build cannot load http(s) URLs")
            }
            if let known { return try await remote.original(for: source, known: known) }
            return try await remote.original(for: source)
        }
    }

    /// Originals that need no wait, without a task (a rebuild of 10,000 fresh photos would
    /// otherwise spend most of its time scheduling them): remote ones fresh in the cache, local
    /// files whose hash is known for the stamp they still have.
    package func availableOriginal(for source: CanonicalURL) -> Original? {
        guard !source.isFile else { return local.known(source) }
        return remote?.availableOriginal(for: source)
    }

    /// ``availableOriginal(for:)`` of a local file stamped by this build (a folder feed's walk)
    /// with `stamp`: no stat(2) of its own.
    package func availableOriginal(for source: CanonicalURL, stamp: SourceStamp?) -> Original? {
        guard source.isFile, let stamp else { return availableOriginal(for: source) }
        return local.known(source, stamp: stamp)
    }

    /// The remote loader's answers for the http(s) URLs of `sources` (it leaves local files
    /// out). They do not pass through the coalescing of ``original(for:)``: for a build that is
    /// alone with its loader, not one whose loads another build may share (`gallerygen serve`).
    package func revalidateCopies(
        of sources: [CanonicalURL], width: Int, answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> CopyAnswers {
        await remote?.revalidateCopies(of: sources, width: width, answered: answered) ?? CopyAnswers()
    }

    package func cachedSHA256(for source: CanonicalURL) -> String? {
        guard !source.isFile else { return nil }
        return remote?.cachedSHA256(for: source)
    }

    package func freshCopy(of damaged: Original) async throws -> Original {
        guard !damaged.source.isFile, let remote else {
            throw LoadingError(
                .unreadableFile, url: damaged.source.description, "the file changed while the build was reading it")
        }
        return try await remote.freshCopy(of: damaged)
    }

    /// Starts a new build on a loader that outlives builds (`gallerygen serve`): what earlier
    /// builds loaded is loaded again (revalidated), unless `keepingFinished` (the previous build
    /// was superseded before it ended, so its results are as new as this build's would be).
    package func beginBuild(keepingFinished: Bool) async {
        if !keepingFinished { await coalescer.forgetFinished() }
    }

    /// Lets go of the originals loaded so far, once the build that asked for them holds its own
    /// copies: at 100,000 URLs the remembered originals are a large share of the build's peak.
    /// The next ask for a URL loads it again (from the cache).
    package func forgetLoaded() async {
        await coalescer.forgetFinished()
    }

    /// Claims the URLs a new build is about to load: loads of them under way go on when an older
    /// build's waiters leave (they are joined, not restarted); loads only the older build wanted
    /// are cancelled as soon as nobody waits for them.
    package func claim(_ sources: Set<CanonicalURL>) async {
        await coalescer.pin(sources)
    }

    /// Cancels every load under way and waits until each has removed its partial files.
    package func cancelAndDrain() async {
        await coalescer.cancelAndDrain()
    }
}
