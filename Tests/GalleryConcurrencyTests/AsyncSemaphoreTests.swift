import Foundation
import TestSupport
import Testing

@testable import GalleryConcurrency

@Suite struct AsyncSemaphoreTests {
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
        try await waitUntil("the waiter queues") { await semaphore.waiterCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await semaphore.release()
        try await semaphore.acquire()  // the permit went back, not to the cancelled waiter
    }
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
