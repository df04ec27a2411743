import Foundation
import Testing

/// Polls `condition` every 10 ms for up to `seconds` (a liveness bound, not a timing assertion);
/// records `failure` as an issue if it never holds.
public func waitUntil(
    seconds: Int = 5,
    _ failure: @autoclosure () -> String = "condition never became true",
    _ condition: () async -> Bool
) async throws {
    for _ in 0..<(seconds * 100) {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record(Comment(rawValue: failure()))
}

/// `work`, which blocks (a child process waited for, files made one after another), done on a
/// thread of its own: a test's cooperative threads (two on a 2-core machine) stay free for the
/// other tests' tasks, which a blocked one starves (a transfer watched for stalls sees none).
public func offTheCooperativeThreads<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws
    -> Value
{
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
