import Synchronization

/// A counting semaphore for tasks: `acquire` suspends (without blocking a thread) until a permit is
/// free, first come first served. A task cancelled while waiting leaves the queue and throws.
///
/// A lock, not an actor: a free permit is taken without a suspension or a hop to another
/// executor, which every HTTP request pays twice (all hosts, then its own).
package final class AsyncSemaphore: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        /// The queue is `waiters[head...]`; the front is dropped in batches, not one by one.
        var waiters: [Waiter] = []
        var head = 0
        /// Waiters whose cancellation came before they joined the queue.
        var cancelledEarly: Set<Int> = []
        var nextID = 0

        mutating func popFirst() -> Waiter? {
            guard head < waiters.count else { return nil }
            let first = waiters[head]
            head += 1
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            return first
        }

        mutating func remove(_ id: Int) -> Waiter? {
            guard let index = waiters[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
    }

    private let state: Mutex<State>

    package init(permits: Int) {
        precondition(permits > 0, "a semaphore needs at least one permit")
        state = Mutex(State(available: permits))
    }

    package func acquire() async throws {
        try Task.checkCancellation()
        let queued: Int? = state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id = queued else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.remove(id)
                // Not queued yet: the continuation, when it comes, is turned away. (Already
                // given a permit: the id is never asked for again, and the mark is one integer.)
                if waiter == nil { state.cancelledEarly.insert(id) }
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Tasks waiting for a permit: what the tests wait on (`@testable`), not the package's API.
    var waiterCount: Int { state.withLock { $0.waiters.count - $0.head } }

    package func release() {
        let next = state.withLock { state in
            let next = state.popFirst()
            if next == nil { state.available += 1 }
            return next
        }
        next?.continuation.resume()
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
}
