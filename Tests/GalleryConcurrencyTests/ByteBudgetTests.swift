import Foundation
import TestSupport
import Testing

@testable import GalleryConcurrency

@Suite struct ByteBudgetTests {
    @Test func neverHoldsMoreThanItsCapacity() async throws {
        let budget = ByteBudget(capacity: 100)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await budget.withReservation(30) {
                        await gauge.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        await gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await gauge.peak == 3, "three reservations of 30 fit in 100, four do not")
        #expect(budget.available == 100)
    }

    @Test func aReservationLargerThanTheBudgetRunsAlone() async throws {
        let budget = ByteBudget(capacity: 10)
        let small = try await budget.reserve(4)
        let large = Task { try await budget.reserve(1_000) }
        try await waitUntil("the large one queues") { budget.waiterCount == 1 }
        #expect(budget.available == 6, "the large one waits for the whole budget")
        budget.release(small)
        #expect(try await large.value == 10)
        #expect(budget.available == 0)
        budget.release(10)
    }

    @Test func aCancelledWaiterLeavesTheQueueAndLetsOthersIn() async throws {
        let budget = ByteBudget(capacity: 10)
        let held = try await budget.reserve(8)
        let blocked = Task { try await budget.reserve(5) }
        try await waitUntil("the first waiter queues") { budget.waiterCount == 1 }
        let behind = Task { try await budget.reserve(2) }
        try await waitUntil("the second waits behind it, though 2 bytes are free") { budget.waiterCount == 2 }
        blocked.cancel()
        await #expect(throws: CancellationError.self) { try await blocked.value }
        #expect(try await behind.value == 2, "first come first served, but a cancelled waiter blocks no one")
        budget.release(held)
        budget.release(2)
        #expect(budget.available == 10)
    }
}
