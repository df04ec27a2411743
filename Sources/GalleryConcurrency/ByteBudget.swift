import Synchronization

/// A budget of bytes that tasks hold while they keep data in memory: `reserve` suspends (without
/// blocking a thread) until the bytes are free, first come first served, and `release` gives
/// them back. A reservation larger than the whole budget is cut to the budget, so it waits for
/// every other holder and then runs alone. A task cancelled while waiting leaves the queue and
/// throws.
package final class ByteBudget: Sendable {
    package let capacity: Int
    private let state: Mutex<State>

    private struct State {
        var available: Int
        var waiters: [(id: Int, bytes: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    package init(capacity: Int) {
        precondition(capacity > 0, "a budget needs at least one byte")
        self.capacity = capacity
        self.state = Mutex(State(available: capacity))
    }

    /// Bytes not reserved now.
    package var available: Int { state.withLock { $0.available } }

    /// Reservations waiting their turn: what the tests wait on (`@testable`), not the package's API.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Reserves `bytes` (at most the capacity) and returns how many were reserved: the amount to
    /// give back to ``release(_:)``.
    package func reserve(_ bytes: Int) async throws -> Int {
        let amount = min(max(bytes, 0), capacity)
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            if state.waiters.isEmpty, state.available >= amount {
                state.available -= amount
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return amount }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case run, cancelled, wait }
                let start = state.withLock { state -> Start in
                    if Task.isCancelled { return .cancelled }
                    if state.waiters.isEmpty, state.available >= amount {
                        state.available -= amount
                        return .run
                    }
                    state.waiters.append((id, amount, continuation))
                    return .wait
                }
                switch start {
                case .run: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(throwing: CancellationError())
            // A waiter removed here never took its bytes; later waiters may now fit.
            resumeWaiters()
        }
        return amount
    }

    /// Gives back bytes that ``reserve(_:)`` returned.
    package func release(_ bytes: Int) {
        state.withLock { $0.available += bytes }
        resumeWaiters()
    }

    /// Runs `body` holding `bytes` of the budget.
    package func withReservation<Value>(_ bytes: Int, _ body: () async throws -> Value) async throws -> Value {
        let reserved = try await reserve(bytes)
        defer { release(reserved) }
        return try await body()
    }

    private func resumeWaiters() {
        let ready = state.withLock { state in
            var ready: [CheckedContinuation<Void, any Error>] = []
            while let first = state.waiters.first, state.available >= first.bytes {
                state.available -= first.bytes
                ready.append(state.waiters.removeFirst().continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
