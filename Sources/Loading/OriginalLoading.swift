import Foundation
package import GalleryCore

/// Something that gets the bytes of an image onto disk, verified: the Loading stage's contract.
///
/// Implementations coalesce ``original(for:)``: however many callers ask for one canonical URL,
/// and whenever they ask within one loader's life, the bytes are fetched at most once.
package protocol OriginalLoading: Sendable {
    /// The verified original for `source`. Cancelling the caller stops its wait; the transfer
    /// itself stops only when no caller is left.
    func original(for source: CanonicalURL) async throws -> Original

    /// The original for `source` when it can be had at once, with no request and no hashing:
    /// fresh in the cache (or any cached copy with `--offline`). Nil means "ask ``original(for:)``".
    func availableOriginal(for source: CanonicalURL) -> Original?
    /// The SHA-256 of the copy of `source` the cache holds, fresh or not: the bytes a
    /// revalidation will most likely confirm (nil when there is none, or for a local file).
    func cachedSHA256(for source: CanonicalURL) -> String?
    /// Loads `damaged.source` anew, whole, after the cached bytes of `damaged` turned out not to
    /// hash to its SHA-256 any more (damaged on disk between builds; the damaged copy is
    /// dropped), or when the build needs bytes it never had or let go (a seeded or shared
    /// original, a `no-store` one) to publish them.
    func freshCopy(of damaged: Original) async throws -> Original

    /// Like ``original(for:)``, but when the cache has no copy of `source` and `known` (asked
    /// only then) knows the bytes, first asks the server whether they are still those (a
    /// conditional request with `known`'s validators): a 304 gives an original of origin
    /// `.seeded`, without its bytes.
    func original(for source: CanonicalURL, known: @escaping @Sendable () async -> KnownOriginal?) async throws
        -> Original

    /// Asks, `width` at a time, whether the cached copies of `sources` (distinct URLs, each
    /// cached but not usable at once: stale, or any with `--refresh`) are still the server's,
    /// in one pass with no task per URL: the answers ``original(for:)`` would give one task
    /// each, by position in `sources`, `answered` called as each comes with that position (and
    /// the original when its bytes are not the copy's: changed upstream). A URL left out (no copy
    /// after all) is loaded as usual. A loader that cannot ask in bulk leaves them all out.
    func revalidateCopies(
        of sources: [CanonicalURL], width: Int, answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> CopyAnswers
}

/// What ``OriginalLoading/revalidateCopies(of:width:answered:)`` heard: an answer per URL asked,
/// by its position in the URLs given (kept by position, not by URL: 100,000 answers hashed no
/// URL), and how many of them confirmed the copy as the cache had it (a 304 that changed neither
/// its validators nor its type: a build that published from those copies would publish the same).
package struct CopyAnswers: Sendable {
    private var byPosition: [Result<Original, any Error>?]
    package var unchanged = 0

    /// No answer for any of `count` URLs.
    package init(count: Int = 0) {
        byPosition = []
        if count > 0 { byPosition = Array(repeating: nil, count: count) }
    }

    /// The answer for the URL at `position`, nil when it was not asked about.
    package subscript(position: Int) -> Result<Original, any Error>? {
        get { byPosition.indices.contains(position) ? byPosition[position] : nil }
        set { byPosition[position] = newValue }
    }

    /// How many URLs were answered.
    package var count: Int { byPosition.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
}

extension OriginalLoading {
    package func revalidateCopies(
        of sources: [CanonicalURL], width: Int, answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> CopyAnswers {
        CopyAnswers()
    }

    package func original(for source: CanonicalURL, known: @escaping @Sendable () async -> KnownOriginal?)
        async throws -> Original
    {
        try await original(for: source)
    }
}
