import NIOPosix

/// Runs blocking libvips work on threads of its own (a `NIOThreadPool` of a fixed width), so
/// that Swift's cooperative pool, which the HTTP client's callbacks and the actors need, is never
/// blocked. Work whose task is cancelled while it waits for a thread is not run.
package final class ImagingPool: Sendable {
    private let threads: NIOThreadPool

    /// A started pool of `width` threads; ``shutdown()`` must be awaited before it is released.
    package init(width: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, width))
        threads.start()
    }

    /// Runs `work` on a pool thread.
    package func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        return try await threads.runIfActive(work)
    }

    /// Lets the work under way finish and stops the threads.
    package func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}
