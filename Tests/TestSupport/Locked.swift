import Synchronization

/// A value many tasks and threads read and change, one at a time.
public final class Locked<Value: Sendable>: Sendable {
    private struct Stored {
        var value: Value?
        /// Those waiting for the value to meet a condition (``until(_:)``).
        var waiters: [Waiter] = []
        var nextWaiter = 0

        /// Takes out the waiters whose condition the value now meets, to be run outside the lock.
        mutating func satisfied() -> [@Sendable () -> Void] {
            guard !waiters.isEmpty else { return [] }
            let ready = waiters.filter { $0.condition(value) }
            waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready.map(\.action)
        }
    }

    private struct Waiter {
        var id: Int
        var condition: @Sendable (Value?) -> Bool
        var action: @Sendable () -> Void
    }

    private let stored: Mutex<Stored>

    public init(_ initial: Value?) {
        stored = Mutex(Stored(value: initial))
    }

    public func set(_ value: Value) {
        update { $0 = value }
    }

    public var value: Value? { stored.withLock { $0.value } }

    public var isSet: Bool { value != nil }

    /// Changes the value in one step (a `value` then `set` from two threads loses one change);
    /// returns the new value.
    @discardableResult
    public func update(_ change: (inout Value?) -> Void) -> Value? {
        let (value, ready) = stored.withLock { stored in
            change(&stored.value)
            return (stored.value, stored.satisfied())
        }
        for action in ready { action() }
        return value
    }

    /// Returns once the value meets `condition`: checked now and at each change, never by
    /// polling. A test whose condition is never met ends at its time limit (or when cancelled).
    public func until(_ condition: @escaping @Sendable (Value?) -> Bool) async {
        let id = stored.withLock { stored in
            defer { stored.nextWaiter += 1 }
            return stored.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let met = stored.withLock { stored in
                    if condition(stored.value) || Task.isCancelled { return true }
                    stored.waiters.append(Waiter(id: id, condition: condition) { continuation.resume() })
                    return false
                }
                if met { continuation.resume() }
            }
        } onCancel: {
            let waiter = stored.withLock { stored in
                let found = stored.waiters.first { $0.id == id }
                stored.waiters.removeAll { $0.id == id }
                return found
            }
            waiter?.action()
        }
    }

    /// Runs `action` once, on the thread that makes the change, as soon as the value meets
    /// `condition` (now, or at a change): a test that must act at that moment does not depend on
    /// a cooperative thread being free to run it.
    public func when(_ condition: @escaping @Sendable (Value?) -> Bool, perform action: @escaping @Sendable () -> Void)
    {
        let met = stored.withLock { stored in
            if condition(stored.value) { return true }
            stored.waiters.append(Waiter(id: stored.nextWaiter, condition: condition, action: action))
            stored.nextWaiter += 1
            return false
        }
        if met { action() }
    }
}
