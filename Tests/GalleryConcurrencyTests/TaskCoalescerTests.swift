import Foundation
import TestSupport
import Testing

@testable import GalleryConcurrency

@Suite struct TaskCoalescerTests {
    @Test func fiftyCallersShareOneRun() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let runs = Counter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await coalescer.value(for: "a") {
                        await runs.increment()
                        try await Task.sleep(for: .milliseconds(30))
                        return 7
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 7, count: 50))
        #expect(await runs.value == 1)
        // Asked again after it finished: remembered, not run again.
        #expect(
            try await coalescer.value(for: "a") {
                await runs.increment()
                return 8
            } == 7)
        #expect(await runs.value == 1)
    }

    @Test func aCancelledWaiterStopsWaitingButTheRunGoesOnForOthers() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = Gate()
        let first = Task {
            try await coalescer.value(for: "k") {
                try await gate.wait()
                return 1
            }
        }
        // The first caller's operation must be the one that runs: the second asks only once it waits.
        try await waitUntil { await coalescer.waiterCount(for: "k") == 1 }
        let second = Task { try await coalescer.value(for: "k") { 2 } }
        try await waitUntil { await coalescer.waiterCount(for: "k") == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await gate.open()
        #expect(try await second.value == 1)
        #expect(await coalescer.startedCount == 1)
    }

    @Test func theRunIsCancelledWhenItsLastWaiterLeaves() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let sawCancel = Counter()
        let waiter = Task {
            try await coalescer.value(for: "k") {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    await sawCancel.increment()
                    throw error
                }
                return 1
            }
        }
        try await waitUntil { await coalescer.waiterCount(for: "k") == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        try await waitUntil { await sawCancel.value == 1 }
        // Forgotten: asking again starts a new run.
        #expect(try await coalescer.value(for: "k") { 5 } == 5)
        #expect(await coalescer.startedCount == 2)
    }

    @Test func aPinnedRunOutlivesItsWaitersAndIsJoinedLater() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let gate = Gate()
        let old = Task {
            try await coalescer.value(for: "kept") {
                try await gate.wait()
                return 1
            }
        }
        let dropped = Task {
            try await coalescer.value(for: "dropped") {
                try await Task.sleep(for: .seconds(30))
                return 2
            }
        }
        try await waitUntil {
            let kept = await coalescer.waiterCount(for: "kept")
            let dropped = await coalescer.waiterCount(for: "dropped")
            return kept == 1 && dropped == 1
        }

        await coalescer.pin(["kept"])  // a new build claims "kept" only
        old.cancel()
        dropped.cancel()
        await #expect(throws: CancellationError.self) { try await old.value }
        await #expect(throws: CancellationError.self) { try await dropped.value }

        let joined = Task { try await coalescer.value(for: "kept") { 99 } }
        try await waitUntil { await coalescer.waiterCount(for: "kept") == 1 }
        await gate.open()
        #expect(try await joined.value == 1, "joined the run under way, not restarted")
        #expect(await coalescer.startedCount == 2)
        // "dropped" was cancelled: asking again starts it afresh.
        #expect(try await coalescer.value(for: "dropped") { 3 } == 3)
    }

    @Test func forgetFinishedRunsAgain() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        #expect(try await coalescer.value(for: "a") { 1 } == 1)
        await coalescer.forgetFinished()
        #expect(try await coalescer.value(for: "a") { 2 } == 2)
    }

    /// A caller already cancelled when it asks is turned away and starts nothing.
    @Test func aCallerCancelledBeforeItAsksStartsNothing() async throws {
        let coalescer = TaskCoalescer<String, Int>()
        let runs = Counter()
        let gate = Gate()
        let caller = Task {
            try await gate.wait()  // cancelled while it waits here, before it asks
            return try await coalescer.value(for: "k") {
                await runs.increment()
                return 1
            }
        }
        caller.cancel()
        await gate.open()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(await coalescer.startedCount == 0)
        #expect(await runs.value == 0)
        #expect(try await coalescer.value(for: "k") { 2 } == 2)
    }

    /// Many callers over a few keys, a third of them cancelled at whatever point they have
    /// reached: each caller that is not cancelled gets its key's one value, every key's run
    /// ends, and nothing is left waiting.
    @Test func cancellationsAtAnyPointLeaveEveryOtherCallerItsValue() async throws {
        for round in 0..<10 {
            let coalescer = TaskCoalescer<Int, Int>()
            let tasks = (0..<120).map { index in
                Task {
                    try await coalescer.value(for: index % 6) {
                        try await Task.sleep(for: .milliseconds(1 + index % 3))
                        return index % 6 * 10
                    }
                }
            }
            for (index, task) in tasks.enumerated() where (index + round) % 3 == 0 { task.cancel() }
            for (index, task) in tasks.enumerated() {
                switch await task.result {
                case .success(let value): #expect(value == index % 6 * 10)
                case .failure(let error): #expect(error is CancellationError)
                }
            }
            for key in 0..<6 {
                #expect(await coalescer.waiterCount(for: key) == 0)
                // Remembered if a run ended with a waiter left, else forgotten and run anew.
                let value = try await coalescer.value(for: key) { -1 }
                #expect(value == key * 10 || value == -1)
            }
            await coalescer.cancelAndDrain()
        }
    }

    @Test func failuresReachEveryWaiter() async {
        struct Boom: Error {}
        let coalescer = TaskCoalescer<Int, Int>()
        await #expect(throws: Boom.self) { try await coalescer.value(for: 1) { throw Boom() } }
        await #expect(throws: Boom.self) { try await coalescer.value(for: 1) { 1 } }
    }
}

actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}

actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async throws {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
