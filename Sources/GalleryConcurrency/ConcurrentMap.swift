import Foundation

extension Array where Element: Sendable {
    /// `map`, spread over one task per core in contiguous chunks; the results keep the order.
    /// For CPU-bound work on many small elements (one task per element would cost more than
    /// the work).
    package func concurrentMap<Result: Sendable>(
        ways: Int = ProcessInfo.processInfo.activeProcessorCount,
        _ transform: @escaping @Sendable (Element) -> Result
    ) async -> [Result] {
        let ways = Swift.max(1, Swift.min(ways, count))
        guard ways > 1 else { return map(transform) }
        let chunk = (count + ways - 1) / ways
        return await withTaskGroup(of: (Int, [Result]).self) { group in
            for start in stride(from: 0, to: count, by: chunk) {
                let slice = self[start..<Swift.min(count, start + chunk)]
                group.addTask { (start, slice.map(transform)) }
            }
            var chunks: [(Int, [Result])] = []
            for await part in group { chunks.append(part) }
            return chunks.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}

/// Lets go of `value` on another thread. A 100,000-photo build ends holding a million small
/// allocations (feed, outcomes, pages, cache records): freeing them took half a second after the
/// site was written, before the report; the command exits without waiting for it.
package func releaseInBackground<Value: Sendable>(_ value: consuming Value) {
    let box = Box(value)
    DispatchQueue.global(qos: .utility).async { box.drop() }
}

private final class Box<Value: Sendable>: @unchecked Sendable {
    // Written once by the thread that ends it; never read.
    private var value: Value?

    init(_ value: consuming Value) {
        self.value = value
    }

    func drop() {
        value = nil
    }
}

/// `work`, which blocks (a folder of 100,000 entries walked on every core), run on a thread of
/// the system's pool: the cooperative threads (two on a 2-core machine) stay free for the tasks
/// that wait on timers and sockets meanwhile (a transfer's watch, `serve`'s answers).
package func offTheCooperativeThreads<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        DispatchQueue.global().async {
            continuation.resume(returning: Result { () throws(Failure) -> Value in try work() })
        }
    }
    return try result.get()
}
