import Foundation
import GalleryCore

/// When and how long to retry a GET: connection errors, 408, 429 and 5xx; exponential backoff
/// with full jitter, or the server's Retry-After up to a cap; a fixed number of attempts.
package struct RetryPolicy: Sendable {
    package var attempts: Int
    package var baseDelay: Duration
    package var maximumDelay: Duration
    /// The longest Retry-After honoured; a longer one fails the request instead of stalling the build.
    package var maximumRetryAfter: Duration

    package init(
        attempts: Int = 3,
        baseDelay: Duration = .milliseconds(200),
        maximumDelay: Duration = .seconds(5),
        maximumRetryAfter: Duration = .seconds(30)
    ) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }

    static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1), or nil when the server asks
    /// for a longer wait than the cap.
    func delay(afterAttempt attempt: Int, retryAfter: String?, now: Date = WallClock.system.now) -> Duration? {
        if let retryAfter, let seconds = Self.seconds(inRetryAfter: retryAfter, now: now) {
            // Compared before converting: a server's "1e300" or "inf" would trap in Int64(_:).
            guard seconds.isFinite, seconds <= maximumRetryAfter.seconds else { return nil }
            return .milliseconds(Int64(seconds * 1000))
        }
        let exponential = baseDelay * (1 << min(attempt - 1, 16))
        let capped = min(exponential, maximumDelay)
        let milliseconds = Double(capped.components.seconds) * 1000 + Double(capped.components.attoseconds) / 1e15
        return .milliseconds(Int64(Double.random(in: 0.5...1.0) * milliseconds))
    }

    /// Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3).
    static func seconds(inRetryAfter value: String, now: Date) -> Double? {
        let trimmed = value.trimmingWhitespace()
        // delay-seconds is 1*DIGIT; Double alone would also take "nan", "inf" and "0x1p3".
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Double(trimmed) {
            return seconds
        }
        return HTTPDate.parse(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }
}
