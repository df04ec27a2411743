import Foundation
import GalleryCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TestSupport
import Testing

@testable import Loading

/// The pass over cached copies asks plain-HTTP hosts over keep-alive lanes: what the usual path
/// would answer, from one request per URL where an answer came.
@Suite(.timeLimit(.minutes(1))) struct KeepAliveLaneTests {
    /// `count` photos loaded once, then the counts reset: the copies a pass asks about.
    private static func cached(_ fixture: LoaderFixture, count: Int) async throws -> [CanonicalURL] {
        let sources = (0..<count).map { fixture.url("/p\($0).jpg") }
        for source in sources { _ = try await fixture.loader().original(for: source) }
        fixture.server.resetCounts()
        return sources
    }

    /// `count` photos cached from a host that then takes every request and says nothing.
    private static func cachedThenSilent(count: Int) async throws -> (LoaderFixture, [CanonicalURL]) {
        let silent = Atomic<Bool>(false)
        let fixture = try await LoaderFixture { request in
            guard silent.load(ordering: .relaxed) else { return .revalidating(request, photo: 19) }
            var response = TestHTTPServer.Response.text(200)
            response.neverAnswer = true
            return response
        }
        let sources = try await cached(fixture, count: count)
        silent.store(true, ordering: .relaxed)
        return (fixture, sources)
    }

    private static func refreshing(
        _ fixture: LoaderFixture, _ configure: (inout HTTPLoader.Configuration) -> Void = { _ in }
    )
        -> HTTPLoader
    {
        fixture.loader {
            $0.refresh = true
            $0.perHost = 2
            configure(&$0)
        }
    }

    /// nginx ends a kept-alive connection after its 1,000th request (`keepalive_requests`),
    /// saying `Connection: close` on the last answer: the lane opens another and goes on.
    @Test func aServerEndingItsConnectionsEveryFewAnswersIsAskedEachURLOnce() async throws {
        let answers = Atomic<Int>(0)
        let fixture = try await LoaderFixture { request in
            var response = TestHTTPServer.Response.revalidating(request, photo: 13)
            if request.isConditional, answers.add(1, ordering: .relaxed).newValue % 3 == 0 {
                response.headers.append(("Connection", "close"))
            }
            return response
        }
        let sources = try await Self.cached(fixture, count: 30)

        let result = await Self.refreshing(fixture).revalidateCopies(of: sources, width: 8) { _, _ in }

        #expect(result.count == 30 && result.unchanged == 30)
        #expect(try sources.indices.allSatisfy { try result[$0]?.get().origin == .revalidated })
        #expect(fixture.server.requests.count == 30)
        #expect(Set(fixture.server.requests.map(\.path)).count == 30)
        #expect(fixture.server.connections >= 10, "a new connection after each closing answer")
        try await fixture.close()
    }

    /// The lane's request says what the client's would: the same user agent, accepted types and
    /// validators (as stored), and a Host header with the port.
    @Test func theLanesRequestCarriesWhatTheClientsWould() async throws {
        // The photo's answer has both validators, ETag and Last-Modified.
        let fixture = try await LoaderFixture { request in .revalidating(request, photo: 14) }
        let source = try await Self.cached(fixture, count: 1)[0]
        _ = try await Self.refreshing(fixture).original(for: source)
        let fromClient = try #require(fixture.server.requests.last)
        fixture.server.resetCounts()

        let result = await Self.refreshing(fixture).revalidateCopies(of: [source], width: 4) { _, _ in }

        #expect(try result[0]?.get().origin == .revalidated)
        let fromLane = try #require(fixture.server.requests.last)
        #expect(fromLane.method == "GET" && fromLane.uri == "/p0.jpg")
        for name in ["user-agent", "accept", "if-none-match", "if-modified-since", "host"] {
            #expect(
                fromLane.headers[name] != nil && fromLane.headers[name] == fromClient.headers[name],
                "\(name): \(fromLane.headers[name] ?? "") against \(fromClient.headers[name] ?? "")")
        }
        #expect(fromLane.headers["host"] == "127.0.0.1:\(fixture.server.port)")
        try await fixture.close()
    }

    /// A body refused (not an image) fails its photo as the client's would, closes that
    /// connection unread, and the other copies are still answered, each asked once.
    @Test func aRefusedBodyFailsItsPhotoAndTheOthersAreAnswered() async throws {
        let refuse = Atomic<Bool>(false)
        let fixture = try await LoaderFixture { request in
            if request.path == "/p4.jpg", refuse.load(ordering: .relaxed) {
                return TestHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "text/html")], body: Array(repeating: 60, count: 200_000))
            }
            return .revalidating(request, photo: 15)
        }
        let sources = try await Self.cached(fixture, count: 12)
        refuse.store(true, ordering: .relaxed)

        let result = await Self.refreshing(fixture).revalidateCopies(of: sources, width: 4) { _, _ in }

        let error = #expect(throws: LoadingError.self) { try result[4]?.get() }
        #expect(error?.code == .notAnImage)
        #expect(error?.message == "the server sent text/html, not an image or a video")
        #expect(result.count == 12 && result.unchanged == 11)
        #expect(fixture.server.requests.count == 12)
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    /// A changed photo comes over the lane whole: one request, its new bytes in the cache.
    @Test func aChangedPhotoIsDownloadedOverTheLane() async throws {
        let changed = Atomic<Bool>(false)
        let fixture = try await LoaderFixture { request in
            if request.path == "/p2.jpg", changed.load(ordering: .relaxed) {
                return .revalidating(request, photo: 17, etag: "\"v2\"")
            }
            return .revalidating(request, photo: 16)
        }
        let sources = try await Self.cached(fixture, count: 6)
        let before = try #require(fixture.cache.record(for: sources[2].description))
        changed.store(true, ordering: .relaxed)
        let newBytes = Mutex<[Int]>([])

        let result = await Self.refreshing(fixture).revalidateCopies(of: sources, width: 4) { position, original in
            if original != nil { newBytes.withLock { $0.append(position) } }
        }

        let replaced = try #require(try result[2]?.get())
        #expect(replaced.origin == .downloaded && replaced.sha256 != before.sha256)
        #expect(fixture.cache.record(for: sources[2].description)?.etag == "\"v2\"")
        #expect(newBytes.withLock { $0 } == [2])
        #expect(result.unchanged == 5)
        #expect(fixture.server.requests.count == 6)
        try await fixture.close()
    }

    /// An answer that asks for a retry (a 503) or a redirect is asked again the usual way, which
    /// retries and follows it: the copies come out as a load would give them.
    @Test func aRetryOrARedirectIsAskedAgainTheUsualWay() async throws {
        let busy = Atomic<Int>(0)
        let moving = Atomic<Bool>(false)
        let fixture = try await LoaderFixture { request in
            if request.path == "/p3.jpg", moving.load(ordering: .relaxed), busy.add(1, ordering: .relaxed).newValue == 1
            {
                return .text(503)
            }
            if request.path == "/p1.jpg", moving.load(ordering: .relaxed) {
                return TestHTTPServer.Response(status: 301, headers: [("Location", "/moved.jpg")], body: [])
            }
            if request.path == "/moved.jpg" { return .revalidating(request, photo: 20, etag: "\"moved\"") }
            return .revalidating(request, photo: 18)
        }
        let sources = try await Self.cached(fixture, count: 5)
        moving.store(true, ordering: .relaxed)

        let result = await Self.refreshing(fixture).revalidateCopies(of: sources, width: 4) { _, _ in }

        #expect(try result[3]?.get().origin == .revalidated)
        let moved = try #require(try result[1]?.get())
        #expect(moved.origin == .downloaded)
        #expect(fixture.cache.record(for: sources[1].description)?.finalURL == fixture.url("/moved.jpg").description)
        #expect(fixture.server.count("/p3.jpg") == 2)
        #expect(fixture.server.count("/p1.jpg") == 2 && fixture.server.count("/moved.jpg") == 1)
        #expect(result.count == 5)
        try await fixture.close()
    }

    /// A lane's answer is the first attempt: with one attempt allowed, a 503 is not asked
    /// again, and the stale copy is served with the usual path's warning.
    @Test func aLanesAnswerIsTheFirstAttempt() async throws {
        let busy = Atomic<Bool>(false)
        let fixture = try await LoaderFixture { request in
            busy.load(ordering: .relaxed) ? .text(503) : .revalidating(request, photo: 23)
        }
        let sources = try await Self.cached(fixture, count: 1)
        busy.store(true, ordering: .relaxed)

        let once = await Self.refreshing(fixture) { $0.retry = RetryPolicy(attempts: 1) }
            .revalidateCopies(of: sources, width: 4) { _, _ in }

        let stale = try #require(try once[0]?.get())
        #expect(stale.origin == .stale)
        #expect(stale.warning?.hasPrefix("the server answered 503") == true, "\(stale.warning ?? "")")
        #expect(fixture.server.requests.count == 1)

        fixture.server.resetCounts()
        let thrice = await Self.refreshing(fixture) {
            $0.retry = RetryPolicy(attempts: 3, baseDelay: .milliseconds(5))
        }.revalidateCopies(of: sources, width: 4) { _, _ in }

        #expect(try thrice[0]?.get().origin == .stale)
        #expect(fixture.server.requests.count == 3)
        try await fixture.close()
    }

    /// A host that takes the request and says nothing: the lane gives the answer up at the
    /// head's deadline, as the first attempt, and the usual path makes the others; the stale copy
    /// is served with the usual path's warning.
    @Test func aSilentHostGivesTheStaleCopyWithTheUsualWarning() async throws {
        let (fixture, sources) = try await Self.cachedThenSilent(count: 1)
        let loader = Self.refreshing(fixture) {
            $0.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(5))
            $0.limits = TransferLimits(
                idle: .milliseconds(400), total: .seconds(20), minimumBytesPerSecond: 2_000,
                grace: .milliseconds(300))
        }

        let result = await loader.revalidateCopies(of: sources, width: 4) { _, _ in }

        let stale = try #require(try result[0]?.get())
        #expect(stale.origin == .stale)
        #expect(
            stale.warning?.hasPrefix("no answer for 0.4 s; using the copy cached") == true, "\(stale.warning ?? "")")
        #expect(fixture.server.requests.count == 2, "the lane's attempt, then the usual path's second")
        try await fixture.close()
    }

    /// A changed photo larger than the bytes a connection holds for its reader (the reading
    /// pauses and starts again) arrives whole.
    @Test func aLargeChangedPhotoArrivesWhole() async throws {
        let changed = Atomic<Bool>(false)
        let large = TestPhotos.jpeg(21) + [UInt8](repeating: 7, count: 3 * LaneBody.Flow.highWater)
        let fixture = try await LoaderFixture { request in
            if request.path == "/p1.jpg", changed.load(ordering: .relaxed),
                request.headers["if-none-match"] != "\"big\""
            {
                return TestHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("ETag", "\"big\"")], body: large)
            }
            return .revalidating(request, photo: 22)
        }
        let sources = try await Self.cached(fixture, count: 3)
        changed.store(true, ordering: .relaxed)

        let result = await Self.refreshing(fixture).revalidateCopies(of: sources, width: 4) { _, _ in }

        let replaced = try #require(try result[1]?.get())
        #expect(replaced.origin == .downloaded && replaced.byteCount == Int64(large.count))
        #expect(FileManager.default.contents(atPath: replaced.filePath) == Data(large))
        #expect(result.unchanged == 2 && fixture.server.requests.count == 3)
        try await fixture.close()
    }

    /// The connection stops reading past the high water, starts again under the low water (not
    /// before), and reads again once the body has ended.
    @Test func aBodysReadingPausesAndResumesAtItsMarks() async throws {
        let server = try await TestHTTPServer(handler: { _ in .text(200) })
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.port).get()
        func reads() async throws -> Bool { try await channel.getOption(ChannelOptions.autoRead).get() }
        let flow = LaneBody.Flow(channel: channel)

        try await channel.eventLoop.submit { flow.arrived(LaneBody.Flow.highWater, on: channel) }.get()
        #expect(try await reads(), "at the high water, still reading")
        try await channel.eventLoop.submit { flow.arrived(1, on: channel) }.get()
        #expect(try await !reads(), "past it, paused")
        flow.taken(LaneBody.Flow.highWater - LaneBody.Flow.lowWater)
        #expect(try await !reads(), "above the low water, still paused")
        flow.taken(2)
        #expect(try await reads(), "under it, reading again")

        try await channel.eventLoop.submit { flow.arrived(LaneBody.Flow.highWater, on: channel) }.get()
        #expect(try await !reads())
        try await channel.eventLoop.submit { flow.ended(on: channel) }.get()
        #expect(try await reads(), "the body ended: the next answer is read")

        try await channel.close()
        try await server.shutdown()
    }

    /// Bodies that are not read to their end: a photo over the size limit (refused by its
    /// length, larger than a connection holds for its reader) and a 503 whose body stalls. Each
    /// closes its connection; the pass ends, and the other copies are answered.
    @Test func aBodyLeftUnreadClosesItsConnection() async throws {
        let changed = Atomic<Bool>(false)
        let busy = Atomic<Int>(0)
        let fixture = try await LoaderFixture { request in
            guard changed.load(ordering: .relaxed) else { return .revalidating(request, photo: 24) }
            switch request.path {
            case "/p1.jpg":
                return TestHTTPServer.Response(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("ETag", "\"huge\"")],
                    body: TestPhotos.jpeg(25) + [UInt8](repeating: 1, count: 2 * LaneBody.Flow.highWater))
            case "/p3.jpg" where busy.add(1, ordering: .relaxed).newValue == 1:
                var response = TestHTTPServer.Response.text(503, String(repeating: "x", count: 500))
                response.trickle = (bytes: 100, every: .seconds(120))
                return response
            default:
                return .revalidating(request, photo: 24)
            }
        }
        let sources = try await Self.cached(fixture, count: 8)
        changed.store(true, ordering: .relaxed)
        let loader = Self.refreshing(fixture) {
            $0.maxImageBytes = 1_000_000
            $0.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(5))
        }

        let result = await loader.revalidateCopies(of: sources, width: 4) { _, _ in }

        let error = #expect(throws: LoadingError.self) { try result[1]?.get() }
        #expect(error?.code == .tooLarge)
        // The 503 was the first attempt; the second, the usual path's, had its 304.
        #expect(try result[3]?.get().origin == .revalidated)
        #expect(fixture.server.count("/p3.jpg") == 2)
        #expect(result.count == 8 && result.unchanged == 7)
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    /// A host that says it is busy or rate-limiting stops the lane at once: what is left goes
    /// the usual way, with its back-off.
    @Test func aBusyAnswerStopsTheLane() async throws {
        let server = try await TestHTTPServer(handler: { request in
            request.path == "/p0.jpg" ? .text(429) : TestHTTPServer.Response(status: 304, headers: [], body: [])
        })
        let statuses = Mutex<[Int: UInt]>([:])
        let lane = KeepAliveLane<Int>(
            host: "127.0.0.1", port: server.port, count: 10,
            prepare: { index in
                .ask(.init(target: "/p\(index).jpg", headers: ["Host": "127.0.0.1:\(server.port)"]), index)
            },
            answered: { index, _, head, body in
                statuses.withLock { $0[index] = head.status.code }
                body?.abandon()
            },
            sent: {}, stopsOn: { $0 == 429 }, silence: { _ in false }, deadline: .seconds(20),
            connectTimeout: .seconds(5))

        let (left, silent, answers) = await lane.run(
            connections: 1, on: MultiThreadedEventLoopGroup.singleton, permit: { true }, release: {})

        #expect(statuses.withLock { $0 } == [0: 429])
        #expect(answers == 1 && silent.isEmpty)
        #expect(left.sorted() == Array(1..<10))
        #expect(server.requests.count == 1)
        try await server.shutdown()
    }

    /// A connection sends its next request only once the reader of the body before is done with
    /// it: one body at a time in memory, however slow the reader.
    @Test func theNextRequestWaitsForTheBodysReader() async throws {
        let server = try await TestHTTPServer(handler: { request in
            request.path == "/p0.jpg"
                ? .text(200, "a body") : TestHTTPServer.Response(status: 304, headers: [], body: [])
        })
        let held = Mutex<LaneBody?>(nil)
        let lane = KeepAliveLane<Int>(
            host: "127.0.0.1", port: server.port, count: 3,
            prepare: { index in
                .ask(.init(target: "/p\(index).jpg", headers: ["Host": "127.0.0.1:\(server.port)"]), index)
            },
            answered: { _, _, _, body in
                if let body { held.withLock { $0 = body } }
            },
            sent: {}, stopsOn: { _ in false }, silence: { _ in false }, deadline: .seconds(20),
            connectTimeout: .seconds(5))
        let run = Task {
            await lane.run(connections: 1, on: MultiThreadedEventLoopGroup.singleton, permit: { true }, release: {})
        }

        try await waitUntil { held.withLock { $0 != nil } }
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.requests.count == 1, "nothing asked while the reader holds the body")
        let body = try #require(held.withLock { $0 })
        var bytes = 0
        for try await chunk in body { bytes += chunk.readableBytes }
        body.abandon()
        let (left, silent, answers) = await run.value

        #expect(bytes == 6 && answers == 3 && left.isEmpty && silent.isEmpty)
        #expect(server.requests.count == 3)
        try await server.shutdown()
    }

    /// A silence counts against the host when it happens and the next answer clears the count,
    /// as request by request on the usual path: two silences with an answer between them do not
    /// make the host rest (its limit here is two). The order is the server's to decide, not the
    /// clock's: the one answer that must come between the lane's silence and the usual path's is
    /// held until the client has hung up on the silent request, and every other answer comes
    /// seconds inside its deadline.
    @Test func silencesWithAnswersBetweenThemDoNotMakeTheHostRest() async throws {
        let later = Atomic<Bool>(false)
        let server = Mutex<TestHTTPServer?>(nil)
        let fixture = try await LoaderFixture { request in
            var response = TestHTTPServer.Response.revalidating(request, photo: 27)
            guard later.load(ordering: .relaxed) else { return response }
            switch request.path {
            case "/p0.jpg": response.neverAnswer = true
            case "/p9.jpg":
                // Asked after p1...p8 (one connection asks them in turn, 0.4 s each) while the
                // other waits on p0; answered once the lane has given up on p0.
                response.until = { server.withLock { $0 }?.hungUpPaths.contains("/p0.jpg") == true }
            default: response.delay = .milliseconds(400)
            }
            return response
        }
        server.withLock { $0 = fixture.server }
        let sources = try await Self.cached(fixture, count: 10)
        later.store(true, ordering: .relaxed)
        let loader = Self.refreshing(fixture) {
            $0.retry = RetryPolicy(attempts: 2, baseDelay: .milliseconds(5))
            $0.limits = TransferLimits(
                idle: .seconds(3), total: .seconds(30), minimumBytesPerSecond: 2_000, grace: .milliseconds(900))
            $0.hostHealth = HostHealth.Configuration(failureLimit: 2)
        }

        let result = await loader.revalidateCopies(of: sources, width: 4) { _, _ in }

        let stale = try #require(try result[0]?.get())
        #expect(stale.origin == .stale)
        #expect(stale.warning?.hasPrefix("no answer for 3.0 s") == true, "\(stale.warning ?? "")")
        #expect(try (1...9).allSatisfy { try result[$0]?.get().origin == .revalidated })
        #expect(fixture.server.count("/p0.jpg") == 2, "asked over the lane, then once more the usual way")
        #expect(fixture.server.hungUpPaths.first == "/p0.jpg")
        let host = sources[0].url
        #expect(
            (try? loader.health.check(host: HTTPLoader.hostKey(host), displayName: "", url: "")) != nil,
            "one silence in a row at the end: the host is not resting")
        try await fixture.close()
    }

    /// Cancelled while a host keeps silent, the pass ends at the lane's next tick, not at the
    /// head's deadline (30 s here).
    @Test func aCancelledPassEndsWithoutWaitingForTheDeadline() async throws {
        let (fixture, sources) = try await Self.cachedThenSilent(count: 4)
        let loader = Self.refreshing(fixture)
        let started = ContinuousClock.now

        let pass = Task { await loader.revalidateCopies(of: sources, width: 4) { _, _ in } }
        await fixture.server.seen { $0.requests.count >= 2 }
        pass.cancel()
        _ = await pass.value

        #expect(ContinuousClock.now - started < .seconds(20), "ended by the cancellation")
        try await fixture.close()
    }

    @Test func theRequestTargetIsThePathAndQueryAsWritten() {
        #expect(HTTPLoader.requestTarget(of: "http://h:8/a/b%20c.jpg?x=1&y=%2F#frag") == "/a/b%20c.jpg?x=1&y=%2F")
        #expect(HTTPLoader.requestTarget(of: "http://h") == "/")
        #expect(HTTPLoader.requestTarget(of: "http://h?q=1") == "/?q=1")
        #expect(HTTPLoader.requestTarget(of: "http://h#f/x?y") == "/")
        #expect(HTTPLoader.requestTarget(of: "http://[::1]:8080/é%20b") == "/é%20b")
        #expect(HTTPLoader.requestTarget(of: "h/a") == nil)
        #expect(HTTPLoader.requestTarget(of: "mailto:a@b") == nil)
    }
}
