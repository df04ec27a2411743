import GalleryCore
import Synchronization

/// How long one HTTP transfer may take: the server's silence, the whole exchange, and the body's
/// rate once it has had time to get going. AsyncHTTPClient's read timeout restarts with every
/// byte and its request deadline ends at the response head, so a body sent at one byte a second
/// would otherwise hold a build for hours (curl's `--max-time` and `--speed-limit` are the same
/// idea).
package struct TransferLimits: Sendable, Equatable {
    /// Nothing received for this long (no head, or no body bytes) ends the transfer.
    package var idle: Duration
    /// The whole exchange, from the request to the last body byte.
    package var total: Duration
    /// Once the body has run for `grace`, its average rate must stay at or above this.
    package var minimumBytesPerSecond: Int64
    package var grace: Duration

    /// 300 s for one transfer: a 50 MB original (the default max_image_bytes) needs 170 kB/s.
    package init(
        idle: Duration = .seconds(30),
        total: Duration = .seconds(300),
        minimumBytesPerSecond: Int64 = 16_384,
        grace: Duration = .seconds(10)
    ) {
        self.idle = idle
        self.total = total
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.grace = grace
    }

    /// How long the answer's head may take: silence for `idle`, or the whole `total`, whichever
    /// comes first.
    var headDeadline: Duration { min(idle, total) }

    /// The error for a head that did not come within ``headDeadline`` of the meter's start: the
    /// message the watch gives a silent transfer.
    func noAnswer(since meter: TransferMeter, url: String) -> LoadingError {
        let started = meter.progress.started
        let silent = TransferMeter.Progress(started: started, lastActivity: started)
        return Self.brokenLimit(of: silent, at: started + headDeadline, limits: self, url: url)
            ?? LoadingError(.timedOut, url: url, "no answer within \(Self.describe(headDeadline))")
    }

    /// Runs `transfer` (a body's streaming), ending it with a `.timedOut` or `.tooSlow` error for
    /// `url` as soon as a limit is broken. The transfer reports each body chunk to `meter`, which
    /// started with the request.
    func enforce<Value: Sendable>(
        url: String, meter: TransferMeter, _ transfer: @escaping @Sendable (TransferMeter) async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await transfer(meter) }
            group.addTask {
                try await watch(meter, url: url)
                return nil
            }
            defer { group.cancelAll() }
            while let finished = try await group.next() {
                if let value = finished { return value }
            }
            throw CancellationError()
        }
    }

    /// Wakes a few times per limit and throws when one is broken; returns only by cancellation.
    private func watch(_ meter: TransferMeter, url: String) async throws {
        let clock = ContinuousClock()
        let tick = max(min(idle, grace, total, .seconds(1)) / 4, .milliseconds(10))
        while true {
            try await Task.sleep(for: tick, clock: clock)
            let now = clock.now
            let progress = meter.progress
            // Silence first; then the rate before the deadline: a watch woken late on a busy
            // machine, past both, names the cause (a body this slow), not the deadline it caused.
            let broken = Self.brokenLimit(of: progress, at: now, limits: self, url: url)
            if let broken, broken.code == .timedOut { throw broken }
            if let bodyStarted = progress.bodyStarted, now - bodyStarted >= grace {
                let seconds = (now - bodyStarted).seconds
                let rate = Double(progress.bodyBytes) / seconds
                if rate < Double(minimumBytesPerSecond) {
                    throw LoadingError(
                        .tooSlow, url: url,
                        "too slow: \(progress.bodyBytes) bytes in \(Self.describe(now - bodyStarted)), under the "
                            + "minimum of \(minimumBytesPerSecond) bytes a second")
                }
            }
            if let broken { throw broken }
        }
    }

    /// The idle or total limit `progress` broke by `now`, if any. Silence is told apart from
    /// slowness whichever limit is seen first (a busy machine may wake the watch late, past
    /// both): no answer at all is `.timedOut`, which counts against the host (``HostHealth``);
    /// an answer too slow to finish is `.tooSlow`, which shows the host is there.
    static func brokenLimit(
        of progress: TransferMeter.Progress, at now: ContinuousClock.Instant, limits: Self, url: String
    )
        -> LoadingError?
    {
        if now - progress.lastActivity >= limits.idle {
            let what = progress.bodyStarted == nil ? "no answer" : "the body stalled: nothing"
            return LoadingError(.timedOut, url: url, "\(what) for \(describe(limits.idle))")
        }
        if now - progress.started >= limits.total {
            if progress.bodyStarted == nil {
                return LoadingError(.timedOut, url: url, "no answer within \(describe(limits.total))")
            }
            return LoadingError(
                .tooSlow, url: url,
                "no complete answer within \(describe(limits.total)) (\(progress.bodyBytes) body bytes received)")
        }
        return nil
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds >= 10 ? "\(Int(seconds.rounded())) s" : "\((seconds * 10).rounded() / 10) s"
    }
}

/// What a transfer has received so far, for ``TransferLimits``.
final class TransferMeter: Sendable {
    struct Progress {
        var started: ContinuousClock.Instant
        var lastActivity: ContinuousClock.Instant
        var bodyStarted: ContinuousClock.Instant?
        var bodyBytes: Int64 = 0
    }

    private let state: Mutex<Progress>

    init() {
        let now = ContinuousClock.now
        state = Mutex(Progress(started: now, lastActivity: now))
    }

    var progress: Progress { state.withLock { $0 } }

    /// The response head arrived: the body's clock starts.
    func headReceived() {
        let now = ContinuousClock.now
        state.withLock {
            $0.lastActivity = now
            $0.bodyStarted = now
        }
    }

    func received(_ count: Int) {
        let now = ContinuousClock.now
        state.withLock {
            $0.lastActivity = now
            $0.bodyBytes += Int64(count)
        }
    }
}
