import Dispatch
import GalleryConcurrency
import GalleryCore

/// Runs blocking libvips work on its own threads, at most `width` at once, so that Swift's
/// cooperative pool (which the HTTP client's callbacks and the actors need) is never blocked.
public final class ImagingPool: Sendable {
    private let queue = DispatchQueue(label: "gallerygen.imaging", attributes: .concurrent)
    private let slots: AsyncSemaphore

    public init(width: Int) {
        self.slots = AsyncSemaphore(permits: max(1, width))
    }

    /// Runs `work` on a pool thread once a slot is free; a task cancelled while it waits is not run.
    public func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await slots.withPermit { [queue] in
            try Task.checkCancellation()
            return try await withCheckedThrowingContinuation { continuation in
                queue.async { continuation.resume(with: Result { try work() }) }
            }
        }
    }
}
