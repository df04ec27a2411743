import Foundation
import GalleryCore

/// The Loading stage: canonical URL in, verified ``Original`` on disk out.
///
/// Local files are read in place; http(s) URLs go through ``RemoteImageSource`` (the disk cache and
/// HTTP revalidation). Every URL is loaded at most once for the loader's life, however many photos
/// name it; one loader serves one build.
public final class ImageLoader: OriginalLoading {
    public struct Configuration: Sendable {
        public var maxImageBytes: Int64

        public init(maxImageBytes: Int64 = 50_000_000) {
            self.maxImageBytes = maxImageBytes
        }
    }

    private let local: LocalFileSource
    private let remote: (any OriginalLoading)?
    private let coalescer = TaskCoalescer<CanonicalURL, Original>()

    /// - Parameter remote: loads http(s) URLs; without one they fail with a clear error.
    public init(configuration: Configuration, remote: (any OriginalLoading)? = nil) {
        self.local = LocalFileSource(maxImageBytes: configuration.maxImageBytes)
        self.remote = remote
    }

    public func original(for source: CanonicalURL) async throws -> Original {
        try await coalescer.value(for: source) { [local, remote] in
            if source.isFile { return try local.original(for: source) }
            guard let remote else {
                throw LoadingError(.unsupportedScheme, url: source.description, "this build cannot load http(s) URLs")
            }
            return try await remote.original(for: source)
        }
    }

    /// Cancels every load under way and waits until each has removed its partial files.
    public func cancelAndDrain() async {
        await coalescer.cancelAndDrain()
    }

    /// How many distinct URLs this loader has started to load.
    public var distinctLoads: Int {
        get async { await coalescer.startedCount }
    }
}
