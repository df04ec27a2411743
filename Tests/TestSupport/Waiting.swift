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
