import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Loading

/// Servers that trickle, stall or never answer: every load ends within the limits, and a host
/// that keeps failing stops being asked (issue 10, case 1).
@Suite(.timeLimit(.minutes(1))) struct TransferLimitsTests {
    /// Limits short enough for a test, in the same proportions as the defaults.
    static let limits = TransferLimits(
        idle: .milliseconds(400), total: .seconds(3), minimumBytesPerSecond: 2_000, grace: .milliseconds(300))
    /// For trickling servers: silence long enough that a busy machine's late pieces never look
    /// like a stall, so only the rate decides.
    static let slowLimits = TransferLimits(
        idle: .seconds(5), total: .seconds(10), minimumBytesPerSecond: 2_000, grace: .milliseconds(300))

    @Test func aBodySentAByteAtATimeIsCutOffByTheMinimumRate() async throws {
        let fixture = try await LoaderFixture { _ in
            var response = TestHTTPServer.Response.photo(1)
            response.trickle = (bytes: 1, every: .milliseconds(20))  // 50 bytes a second
            return response
        }
        let loader = fixture.loader { $0.limits = Self.slowLimits }

        let error = await #expect(throws: LoadingError.self) {
            try await loader.original(for: fixture.url("/slow.jpg"))
        }

        #expect(error?.code == .tooSlow)
        #expect(error?.message.hasPrefix("too slow: ") == true, "\(error?.message ?? "")")
        #expect(fixture.server.count("/slow.jpg") == 1, "cut off once, not retried: another try would be as slow")
        try await waitUntil(seconds: 5, "the server sees the client hang up") {
            fixture.server.abortedPaths.count == 1
        }
        #expect(fixture.leftovers.isEmpty, "no partial file")
        try await fixture.close()
    }

    @Test func aBodyFastEnoughButEndlessMeetsTheDeadline() async throws {
        // 100 bytes every 10 ms is 10 kB/s, above the minimum; 80 kB would take 8 s.
        let body = [UInt8](repeating: 0xFF, count: 80_000)
        let fixture = try await LoaderFixture { _ in
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: body)
            response.body.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF])
            response.trickle = (bytes: 100, every: .milliseconds(10))
            return response
        }
        // A minimum far below the server's rate: only the deadline can end this one, even on a
        // machine so busy that the server's pieces come late. The deadline leaves room for the
        // answer's head to come first on such a machine (at 1 s, a full test run on two cores
        // once had none by then: a timeout, not this).
        let loader = fixture.loader(
            limits: TransferLimits(
                idle: .seconds(5), total: .seconds(3), minimumBytesPerSecond: 100, grace: .milliseconds(300)))

        let error = await #expect(throws: LoadingError.self) {
            try await loader.original(for: fixture.url("/long.jpg"))
        }

        #expect(error?.code == .tooSlow)
        #expect(error?.message.hasPrefix("no complete answer within 3.0 s") == true, "\(error?.message ?? "")")
        #expect(fixture.server.count("/long.jpg") == 1)
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    /// A host that takes every request and never answers.
    static func silentHost() async throws -> LoaderFixture {
        try await LoaderFixture { _ in
            var response = TestHTTPServer.Response.photo(1)
            response.neverAnswer = true
            return response
        }
    }

    @Test func aHostThatAcceptsAndNeverAnswersIsGivenUpAfterAFewTimeouts() async throws {
        let fixture = try await Self.silentHost()
        let loader = fixture.loader {
            $0.limits = Self.limits
            $0.perHost = 4
        }
        let count = 40

        let errors = await withTaskGroup(of: LoadingError?.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        _ = try await loader.original(for: fixture.url("/p/\(index).jpg"))
                        return nil
                    } catch {
                        return error as? LoadingError
                    }
                }
            }
            return await group.reduce(into: [LoadingError?]()) { $0.append($1) }
        }

        #expect(errors.count == count && errors.allSatisfy { $0 != nil }, "every load fails")
        let codes = errors.compactMap { $0?.code }
        #expect(codes.filter { $0 == .timedOut }.count <= 4 + 3)
        #expect(codes.filter { $0 == .hostDown }.count >= count - 4 - 3)
        // Without the memory of failures: 40 photos x 3 attempts = 120 requests, 4 at a time.
        #expect(fixture.server.requests.count <= 4 + 3, "got \(fixture.server.requests.count)")
        let down = try #require(errors.compactMap { $0 }.first { $0.code == .hostDown })
        #expect(
            down.message.hasPrefix("not asked: 127.0.0.1 failed 3 times or more in a row (no answer in time)"))
        try await fixture.close()
    }

    /// Until the head, the client's own deadline holds the limits (no watch runs): a server that
    /// takes the request and says nothing ends in the message the watch gave silence, at about
    /// the idle limit, not at the total.
    @Test func aSilentServerIsGivenUpAtTheIdleLimitWithTheWatchsMessage() async throws {
        let fixture = try await Self.silentHost()
        // The total far from the idle limit: a busy machine's late timer does not blur the two.
        let limits = TransferLimits(
            idle: .milliseconds(400), total: .seconds(20), minimumBytesPerSecond: 2_000, grace: .milliseconds(300))
        let loader = fixture.loader(limits: limits)
        let started = ContinuousClock.now

        let error = await #expect(throws: LoadingError.self) {
            try await loader.original(for: fixture.url("/silent.jpg"))
        }

        #expect(error?.code == .timedOut)
        #expect(error?.message == "no answer for 0.4 s", "\(error?.message ?? "")")
        #expect(ContinuousClock.now - started < limits.total, "ended by the idle limit")
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    /// The head's deadline ends with the head: a body that streams for longer than it, within
    /// the limits, arrives whole. The idle limit (the head's deadline here) is far above the
    /// trickle's pause: a CI run under load starved the transfer for more than 0.6 s, the limit
    /// this test had, and a run beside the rest of the suite for more than 2.5 s, the next; the
    /// watch rightly called each stalled. It runs on real time (the bytes do), so the body lasts
    /// 7.5 s against an idle limit of 5 s. There is no minimum rate for the same reason: a
    /// loaded run got 480 bytes through in 5.1 s, under the 100 bytes a second this test asked,
    /// which is not what it is about.
    @Test func aBodyLongerThanTheHeadsDeadlineArrivesWhole() async throws {
        let photo = TestHTTPServer.Response.photo(1)
        let fixture = try await LoaderFixture { _ in
            var response = photo
            response.trickle = (bytes: max(1, photo.body.count / 30), every: .milliseconds(250))
            return response
        }
        let limits = TransferLimits(
            idle: .seconds(5), total: .seconds(30), minimumBytesPerSecond: 0, grace: .milliseconds(300))
        let loader = fixture.loader(limits: limits)
        let started = ContinuousClock.now

        let original = try await loader.original(for: fixture.url("/long.jpg"))

        #expect(ContinuousClock.now - started > limits.headDeadline, "the body outlasted the head's deadline")
        #expect(original.byteCount == Int64(photo.body.count))
        #expect(fixture.server.count("/long.jpg") == 1)
        try await fixture.close()
    }

    @Test func theHeadsDeadlineIsTheShorterLimitAndItsMessageTheWatchs() {
        let meter = TransferMeter()
        #expect(Self.limits.headDeadline == .milliseconds(400))
        #expect(Self.limits.noAnswer(since: meter, url: "u").message == "no answer for 0.4 s")
        let patient = TransferLimits(
            idle: .seconds(20), total: .seconds(3), minimumBytesPerSecond: 1, grace: .milliseconds(300))
        #expect(patient.headDeadline == .seconds(3))
        let error = patient.noAnswer(since: meter, url: "u")
        #expect(error.code == .timedOut)
        #expect(error.message == "no answer within 3.0 s")
    }

    /// A watch woken late (a busy machine) may find both the idle and the total limit broken:
    /// silence is still silence, which counts against the host, and only an answer that
    /// started is too slow. (A late wake once read a silent host's timeout as `.tooSlow`, which
    /// counted as the host answering: an eighth request reached the silent host above.)
    @Test func aLateWatchStillTellsSilenceFromSlowness() {
        let limits = Self.limits
        let start = ContinuousClock.now
        let late = start + .seconds(10)
        let silent = TransferMeter.Progress(started: start, lastActivity: start)
        #expect(TransferLimits.brokenLimit(of: silent, at: late, limits: limits, url: "u")?.code == .timedOut)
        let answering = TransferMeter.Progress(
            started: start, lastActivity: late - .milliseconds(10), bodyStarted: start + .milliseconds(5),
            bodyBytes: 100)
        #expect(TransferLimits.brokenLimit(of: answering, at: late, limits: limits, url: "u")?.code == .tooSlow)
        let headOnly = TransferMeter.Progress(
            started: start, lastActivity: start + .milliseconds(5), bodyStarted: start + .milliseconds(5))
        #expect(TransferLimits.brokenLimit(of: headOnly, at: late, limits: limits, url: "u")?.code == .timedOut)
        #expect(TransferLimits.brokenLimit(of: silent, at: start + .milliseconds(100), limits: limits, url: "u") == nil)
        // Silence past the total before the idle limit (idle longer than total): still silence.
        let patient = TransferLimits(
            idle: .seconds(20), total: .seconds(3), minimumBytesPerSecond: 1, grace: .milliseconds(300))
        #expect(TransferLimits.brokenLimit(of: silent, at: late, limits: patient, url: "u")?.code == .timedOut)
    }

    @Test func slowAnswersAreNotHeldAgainstTheHost() async throws {
        let fixture = try await LoaderFixture { request in
            var response = TestHTTPServer.Response.photo(1)
            if request.path.hasPrefix("/slow") { response.trickle = (bytes: 1, every: .milliseconds(20)) }
            return response
        }
        let loader = fixture.loader { $0.limits = Self.slowLimits }
        for index in 0..<4 {
            await #expect(throws: LoadingError.self) { try await loader.original(for: fixture.url("/slow/\(index)")) }
        }
        // A slow link is not a dead host: the next photo is still asked for.
        _ = try await loader.original(for: fixture.url("/fast.jpg"))
        #expect(fixture.server.count("/fast.jpg") == 1)
        try await fixture.close()
    }

    @Test func aHostThatAnswersIsNotHeldAgainstFailuresBefore() async throws {
        let fixture = try await LoaderFixture { request in
            var response = TestHTTPServer.Response.photo(1)
            response.neverAnswer = request.path.hasPrefix("/silent")
            return response
        }
        // Long enough for the answering request on a busy machine: 1.5 s was not, once, on a
        // 2-core CI machine running the end-to-end builds beside it.
        let loader = fixture.loader(
            limits: TransferLimits(
                idle: .seconds(4), total: .seconds(8), minimumBytesPerSecond: 2_000, grace: .milliseconds(300)))
        for index in 0..<2 {
            await #expect(throws: LoadingError.self) { try await loader.original(for: fixture.url("/silent/\(index)")) }
        }
        _ = try await loader.original(for: fixture.url("/ok/1.jpg"))
        // Two failures, then an answer: the count starts again, so two more failures do not
        // reach the limit of three.
        for index in 2..<4 {
            let error = await #expect(throws: LoadingError.self) {
                try await loader.original(for: fixture.url("/silent/\(index)"))
            }
            #expect(error?.code == .timedOut)
        }
        #expect(fixture.server.count("/silent/3") == 1)
        try await fixture.close()
    }
}

extension LoaderFixture {
    /// A loader held to `limits`, with one attempt: a retry would hide which limit ended it.
    func loader(limits: TransferLimits) -> HTTPLoader {
        loader {
            $0.limits = limits
            $0.retry.attempts = 1
        }
    }
}
