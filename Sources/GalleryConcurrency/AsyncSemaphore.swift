/// A counting semaphore for tasks: `acquire` suspends (without blocking a thread) until a permit is
/// free, first come first served. A task cancelled while waiting leaves the queue and throws.
package actor AsyncSemaphore {
    private var available: Int
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    package init(permits: Int) {
        precondition(permits > 0, "a semaphore needs at least one permit")
        self.available = permits
    }

    package func acquire() async throws {
        try Task.checkCancellation()
        if available > 0 {
            available -= 1
            return
        }
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Tasks waiting for a permit.
    package var waiterCount: Int { waiters.count }

    package func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Runs `body` holding one permit.
    package func withPermit<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
