import Foundation
import Synchronization

/// A photo host for build tests: serves `/feed.json` (a list feed of `count` photos plus any
/// extra entries) and `/photos/N.jpg`, each with an ETag of its version, answering 304 to a
/// matching If-None-Match, like nginx. Photos can be changed, and the host can go down.
public final class Upstream: Sendable {
    public let server: TestHTTPServer
    private let box: StateBox

    private final class StateBox: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private struct State {
        var count: Int
        var versions: [Int: Int] = [:]
        var down = false
        var delay: Duration?
        /// Photos numbered from this on are delayed, or held.
        var delayFrom = 0
        /// Answers to the delayed photos wait until this says so (or the delay, a minute without one).
        var hold: (@Sendable () -> Bool)?
        var cacheControl: String?
        var extraEntries: [String] = []
    }

    public init(count: Int, delay: Duration? = nil) async throws {
        let box = StateBox(State(count: count, delay: delay))
        self.box = box
        server = try await TestHTTPServer { request in
            Upstream.answer(request, state: box.state.withLock { $0 })
        }
    }

    public var feedURL: String { server.baseURL + "/feed.json" }

    /// Makes photo `number` a different picture (a new version with a new ETag).
    public func change(_ number: Int) {
        box.state.withLock { $0.versions[number, default: 0] += 1 }
    }

    /// Delays the answers for photos numbered `from` and up.
    public func setDelay(_ delay: Duration?, from: Int) {
        box.state.withLock {
            $0.delay = delay
            $0.delayFrom = from
        }
    }

    /// Holds the answers for photos numbered `from` and up until `release` says so (asked every
    /// 20 ms; a minute at most): what the build does meanwhile is done before they arrive.
    public func hold(from: Int, until release: @escaping @Sendable () -> Bool) {
        box.state.withLock {
            $0.hold = release
            $0.delayFrom = from
        }
    }

    public func setDown(_ down: Bool) { box.state.withLock { $0.down = down } }
    public func setCacheControl(_ value: String?) { box.state.withLock { $0.cacheControl = value } }
    public func setCount(_ count: Int) { box.state.withLock { $0.count = count } }
    public func setExtraEntries(_ entries: [String]) { box.state.withLock { $0.extraEntries = entries } }

    /// Requests for photos only (not the feed), with their status-relevant facts.
    public var photoRequests: [TestHTTPServer.Request] { server.requests.filter { $0.path.hasPrefix("/photos/") } }

    private static func answer(_ request: TestHTTPServer.Request, state: State) -> TestHTTPServer.Response {
        if state.down { return .text(503, "down for maintenance") }
        var extra: [(String, String)] = []
        if let cacheControl = state.cacheControl { extra.append(("Cache-Control", cacheControl)) }
        if request.path == "/feed.json" {
            var entries = (1...max(1, state.count)).map {
                #"{"title": "Photo \#($0)", "imageUrl": "photos/\#($0).jpg"}"#
            }
            if state.count == 0 { entries = [] }
            entries += state.extraEntries
            let body = Array(("[" + entries.joined(separator: ",\n") + "]").utf8)
            let etag = "\"feed-\(body.count)-\(state.versions.values.reduce(0, +))\""
            if request.headers["if-none-match"] == etag { return .init(status: 304, headers: [("ETag", etag)] + extra) }
            return .init(headers: [("Content-Type", "application/json"), ("ETag", etag)] + extra, body: body)
        }
        let name = request.path.dropFirst("/photos/".count).prefix { $0 != "." }
        guard request.path.hasPrefix("/photos/"), let number = Int(name), number >= 1 else { return .text(404) }
        let version = state.versions[number] ?? 0
        let delay = number >= state.delayFrom ? state.delay : nil
        let held = number >= state.delayFrom ? state.hold : nil
        let tag = "\"p\(number)-v\(version)\""
        var response =
            request.headers["if-none-match"] == tag
            ? TestHTTPServer.Response(status: 304, headers: [("ETag", tag)] + extra)
            : TestHTTPServer.Response.photo(number + 1000 * version, etag: tag, extraHeaders: extra)
        response.delay = delay
        response.until = held
        return response
    }
}
