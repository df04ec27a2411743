/// Runs one operation per key however many callers ask for it, and remembers the outcome.
///
/// Each caller waits on its own continuation, so a cancelled caller stops waiting at once; the
/// operation is cancelled only when its last waiter has gone. The running entry leaves the map on
/// every ending: success, failure or cancellation (Nuke's `TaskPool` works the same way).
/// Successes and failures are remembered, so a key asked for again later is not run again;
/// a cancelled run is forgotten, so asking again starts afresh.
package actor TaskCoalescer<Key: Hashable & Sendable, Value: Sendable> {
    private struct Running {
        let generation: Int
        var task: Task<Void, Never>?
        var waiters: [Int: CheckedContinuation<Value, any Error>] = [:]
    }

    private var running: [Key: Running] = [:]
    /// Keys whose operation goes on when its last waiter leaves: a newer build has claimed them.
    private var pinned: Set<Key> = []
    /// Every operation not yet ended, including those whose waiters all left: ``drain()`` awaits them.
    private var unfinished: [Int: Task<Void, Never>] = [:]
    private var finished: [Key: Result<Value, any Error>] = [:]
    private var nextID = 0

    /// How many operations have been started, over the coalescer's life (for reports and tests).
    package private(set) var startedCount = 0

    /// How many waiters the key has now: what the tests wait on (`@testable`), not the package's API.
    func waiterCount(for key: Key) -> Int { running[key]?.waiters.count ?? 0 }

    package init() {}

    package func value(for key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let result = finished[key] { return try result.get() }
        nextID += 1
        let waiterID = nextID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if running[key] == nil { start(key, operation) }
                running[key]?.waiters[waiterID] = continuation
            }
        } onCancel: {
            Task { await self.leave(key, waiterID: waiterID) }
        }
    }

    private func start(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) {
        nextID += 1
        let generation = nextID
        startedCount += 1
        running[key] = Running(generation: generation)
        let task = Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            self.finish(key, generation: generation, result: result)
        }
        running[key]?.task = task
        unfinished[generation] = task
    }

    /// Cancels every operation and waits until each has ended (and so cleaned up after itself).
    package func cancelAndDrain() async {
        let tasks = Array(unfinished.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func finish(_ key: Key, generation: Int, result: Result<Value, any Error>) {
        unfinished[generation] = nil
        guard let entry = running[key], entry.generation == generation else { return }
        running[key] = nil
        pinned.remove(key)
        if case .failure(let error) = result, error is CancellationError {
            // Nobody is left to tell (the last waiter's leaving cancelled it), or a caller's
            // cancellation reached the operation: forget it so that the next ask starts afresh.
        } else {
            finished[key] = result
        }
        for continuation in entry.waiters.values { continuation.resume(with: result) }
    }

    private func leave(_ key: Key, waiterID: Int) {
        guard let continuation = running[key]?.waiters.removeValue(forKey: waiterID) else { return }
        continuation.resume(throwing: CancellationError())
        if running[key]?.waiters.isEmpty == true, !pinned.contains(key) {
            running[key]?.task?.cancel()
            running[key] = nil
        }
    }

    /// Claims `keys` for a caller about to ask for them: their operations go on even if every
    /// current waiter leaves. Replaces the previous claim; an operation that was kept only by it
    /// and has no waiter left is cancelled now.
    package func pin(_ keys: Set<Key>) {
        let released = pinned.subtracting(keys)
        pinned = keys
        for key in released where running[key]?.waiters.isEmpty == true {
            running[key]?.task?.cancel()
            running[key] = nil
        }
    }

    /// Forgets remembered outcomes (the next ask runs again); operations under way are kept.
    package func forgetFinished() {
        finished = [:]
    }
}
