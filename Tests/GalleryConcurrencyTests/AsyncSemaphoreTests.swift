import Foundation
import TestSupport
import Testing

@testable import GalleryConcurrency

/// Time-limited: a lost permit would leave a test waiting for ever, not failing.
@Suite(.timeLimit(.minutes(1))) struct AsyncSemaphoreTests {
    @Test func neverLetsMoreThanItsPermitsIn() async throws {
        let semaphore = AsyncSemaphore(permits: 3)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await semaphore.withPermit {
                        await gauge.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        await gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await gauge.peak == 3)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let semaphore = AsyncSemaphore(permits: 1)
        try await semaphore.acquire()
        let waiter = Task { try await semaphore.acquire() }
        try await waitUntil("the waiter queues") { semaphore.waiterCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        semaphore.release()
        try await semaphore.acquire()  // the permit went back, not to the cancelled waiter
    }

    /// Waiters cancelled at every point (before they queue, while queued, as they are given a
    /// permit) never leak a permit nor get one twice: afterwards every permit is free and nobody
    /// waits.
    @Test func cancellationsAtAnyPointKeepEveryPermit() async throws {
        let permits = 3
        let semaphore = AsyncSemaphore(permits: permits)
        let gauge = Gauge()
        for round in 0..<20 {
            let tasks = (0..<30).map { _ in
                Task {
                    try await semaphore.withPermit {
                        await gauge.enter()
                        await Task.yield()
                        await gauge.leave()
                    }
                }
            }
            for (index, task) in tasks.enumerated() where (index + round) % 3 == 0 { task.cancel() }
            for task in tasks { _ = try? await task.value }
        }
        #expect(semaphore.waiterCount == 0)
        #expect(await gauge.peak <= permits)
        for _ in 0..<permits { try await semaphore.acquire() }  // all free: none of these waits
        let extra = Task { try await semaphore.acquire() }
        try await waitUntil("one more must wait") { semaphore.waiterCount == 1 }
        semaphore.release()
        try await extra.value
    }

    @Test func waitersAreServedInTheOrderTheyCame() async throws {
        let semaphore = AsyncSemaphore(permits: 1)
        try await semaphore.acquire()
        let order = Recorder()
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<100 {
            tasks.append(
                Task {
                    try await semaphore.acquire()
                    await order.append(index)
                    semaphore.release()
                })
            try await waitUntil("waiter \(index) queues") { semaphore.waiterCount == index + 1 }
        }
        semaphore.release()
        for task in tasks { try await task.value }
        #expect(await order.values == Array(0..<100))
    }
}

actor Recorder {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}

actor Gauge {
    private(set) var current = 0
    private(set) var peak = 0

    func enter() {
        current += 1
        peak = max(peak, current)
    }

    func leave() { current -= 1 }
}
