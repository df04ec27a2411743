import GalleryCore
import Synchronization
import Testing

@testable import Loading

/// A host that keeps failing is left alone for a while, then asked again (issue 10).
@Suite struct HostHealthTests {
    /// A clock that moves only when told to.
    final class ManualTime: Sendable {
        private let current = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { current.withLock { $0 } }
        func advance(by duration: Duration) { current.withLock { $0 += duration } }
    }

    static let silence = LoadingError(.timedOut, url: "http://dead.example/", "no answer for 30 s")

    @Test func threeFailuresInARowRestTheHostThenItIsAskedAgain() throws {
        let time = ManualTime()
        let health = HostHealth(
            configuration: HostHealth.Configuration(failureLimit: 3, restFor: .seconds(120)), now: { time.now })
        for _ in 0..<2 { health.failed(host: "dead", because: Self.silence) }
        try health.check(host: "dead", displayName: "dead.example", url: "http://dead.example/a.jpg")

        health.failed(host: "dead", because: Self.silence)
        let error = #expect(throws: LoadingError.self) {
            try health.check(host: "dead", displayName: "dead.example", url: "http://dead.example/b.jpg")
        }
        #expect(error?.code == .hostDown)
        #expect(error?.message == "not asked: dead.example failed 3 times or more in a row (no answer in time)")

        time.advance(by: .seconds(119))
        #expect(throws: LoadingError.self) { try health.check(host: "dead", displayName: "d", url: "u") }
        time.advance(by: .seconds(1))
        try health.check(host: "dead", displayName: "d", url: "u")  // rested: one more try
        // And one more failure is enough to rest it again.
        health.failed(host: "dead", because: Self.silence)
        #expect(throws: LoadingError.self) { try health.check(host: "dead", displayName: "d", url: "u") }
    }

    @Test func anAnswerForgetsThePastFailures() throws {
        let health = HostHealth()
        for _ in 0..<2 { health.failed(host: "flaky", because: Self.silence) }
        health.succeeded(host: "flaky")
        for _ in 0..<2 { health.failed(host: "flaky", because: Self.silence) }
        try health.check(host: "flaky", displayName: "flaky", url: "u")
    }
}
