import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP server on 127.0.0.1, port 0, for tests: answers with a handler, counts requests per
/// path, tracks how many it is answering at once, and can delay, truncate or fail answers.
public final class TestHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        /// Path and query as sent.
        public var uri: String
        /// Header names lower-cased.
        public var headers: [String: String]

        public var path: String { String(uri.prefix { $0 != "?" }) }
        public var isConditional: Bool { headers["if-none-match"] != nil || headers["if-modified-since"] != nil }
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Wait this long before answering.
        public var delay: Duration?
        /// Send only this many body bytes (with the full Content-Length), then close the connection.
        public var truncateAfter: Int?
        /// Send the body `bytes` at a time with a pause of `every` between pieces (a slow or
        /// hostile server); a client that hangs up is recorded as an aborted transfer.
        public var trickle: (bytes: Int, every: Duration)?
        /// Read the request and never answer it (a host that accepts and goes silent).
        public var neverAnswer = false
        /// Answer only once this says so (asked every 20 ms on the server's loop), or after
        /// `delay` (a minute without one), whichever comes first.
        public var until: (@Sendable () -> Bool)?

        public init(
            status: Int = 200,
            headers: [(String, String)] = [],
            body: [UInt8] = [],
            delay: Duration? = nil,
            truncateAfter: Int? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.truncateAfter = truncateAfter
        }

        public static func text(_ status: Int, _ text: String = "") -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
        }
    }

    public typealias Handler = @Sendable (Request) -> Response

    private struct State {
        var requests: [Request] = []
        /// Paths whose answer could not be sent: the client had gone (an aborted transfer).
        var aborted: [String] = []
        /// Paths asked with `neverAnswer` whose connection the client then closed.
        var hungUp: [String] = []
        var inFlight = 0
        var maxInFlight = 0
        var connections = 0
        var handler: Handler

        var seen: Seen { Seen(requests: requests, aborted: aborted) }
    }

    /// What the server has seen: the requests, in order, and the paths whose answer could not be
    /// sent.
    public struct Seen: Sendable {
        public var requests: [Request]
        public var aborted: [String]
    }

    /// Returns once `condition` holds of what the server has seen: checked now and as each
    /// request arrives or an answer is aborted, never by polling. A test whose condition never
    /// holds ends at its time limit (or when cancelled).
    public func seen(_ condition: @escaping @Sendable (Seen) -> Bool) async {
        await observed.until { $0.map(condition) ?? false }
    }

    /// Runs `action` once, on the server's thread, as soon as `condition` holds of what the
    /// server has seen (now, or when a request arrives or an answer is aborted): a test that
    /// must act at that moment (interrupt a build while its downloads are under way) does not
    /// depend on a cooperative thread being free to run it. It runs while the server holds its
    /// lock, so it must not call the server.
    public func whenSeen(
        _ condition: @escaping @Sendable (Seen) -> Bool, perform action: @escaping @Sendable () -> Void
    ) {
        observed.when({ $0.map(condition) ?? false }, perform: action)
    }

    /// What ``seen(_:)`` and ``whenSeen(_:perform:)`` watch, changed with the state.
    private let observed = Locked<Seen>(Seen(requests: [], aborted: []))
    private let state: Mutex<State>
    private let channel: Mutex<(any Channel)?>
    public let port: Int

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init(handler: @escaping Handler) async throws {
        let state = Mutex(State(handler: handler))
        self.state = state
        self.channel = Mutex(nil)
        let box = StateBox(server: nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(box: box))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        self.port = bound.localAddress?.port ?? 0
        self.channel.withLock { $0 = bound }
        box.set(self)
    }

    /// Replaces the handler (to change what the "upstream" serves between builds).
    public func setHandler(_ handler: @escaping Handler) {
        state.withLock { $0.handler = handler }
    }

    public func shutdown() async throws {
        let bound = channel.withLock { $0 }
        try await bound?.close()
    }

    public var requests: [Request] { state.withLock { $0.requests } }
    public var abortedPaths: [String] { state.withLock { $0.aborted } }
    /// Paths never answered (`neverAnswer`) whose connection the client closed: when it gave up.
    public var hungUpPaths: [String] { state.withLock { $0.hungUp } }

    fileprivate func recordHungUp(_ path: String) {
        state.withLock { $0.hungUp.append(path) }
    }

    fileprivate func recordAborted(_ path: String) {
        state.withLock { state in
            state.aborted.append(path)
            observed.set(state.seen)
        }
    }
    public var maxConcurrent: Int { state.withLock { $0.maxInFlight } }
    /// Connections opened since the server started or its counts were reset.
    public var connections: Int { state.withLock { $0.connections } }

    fileprivate func recordConnection() {
        state.withLock { $0.connections += 1 }
    }
    /// Requests being answered now (a silent host's stay here).
    public var inFlight: Int { state.withLock { $0.inFlight } }

    public func count(_ path: String) -> Int {
        state.withLock { $0.requests.filter { $0.path == path }.count }
    }

    public func resetCounts() {
        state.withLock {
            $0.requests = []
            $0.aborted = []
            $0.hungUp = []
            $0.maxInFlight = 0
            $0.connections = 0
            observed.set($0.seen)
        }
    }

    fileprivate func begin(_ request: Request) -> Response {
        state.withLock { state in
            state.requests.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            observed.set(state.seen)
            return state.handler(request)
        }
    }

    fileprivate func end() {
        state.withLock { $0.inFlight -= 1 }
    }
}

/// Lets connection handlers reach the server once it exists.
private final class StateBox: Sendable {
    private let server: Mutex<TestHTTPServer?>

    init(server: TestHTTPServer?) {
        self.server = Mutex(server)
    }

    func set(_ server: TestHTTPServer) {
        self.server.withLock { $0 = server }
    }

    var value: TestHTTPServer? { server.withLock { $0 } }
}

private final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: StateBox
    private var head: HTTPRequestHead?
    /// The path of a request this connection holds unanswered (`neverAnswer`).
    private var silentPath: String?

    init(box: StateBox) {
        self.box = box
    }

    func channelActive(context: ChannelHandlerContext) {
        box.value?.recordConnection()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head, let server = box.value else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = TestHTTPServer.Request(method: "\(head.method)", uri: head.uri, headers: headers)
            let response = server.begin(request)
            if response.neverAnswer {
                silentPath = request.path
                return
            }
            let loop = context.eventLoop.assumeIsolated()
            if let until = response.until {
                let deadline = NIODeadline.now() + Self.timeAmount(response.delay ?? .seconds(60))
                func answerWhenDue() {
                    if until() || NIODeadline.now() >= deadline {
                        respond(
                            response, context: context, keepAlive: head.isKeepAlive, server: server, path: request.path)
                    } else {
                        loop.scheduleTask(in: .milliseconds(20)) { answerWhenDue() }
                    }
                }
                answerWhenDue()
            } else if let delay = response.delay {
                loop.scheduleTask(in: Self.timeAmount(delay)) {
                    self.respond(
                        response, context: context, keepAlive: head.isKeepAlive, server: server, path: request.path)
                }
            } else {
                respond(response, context: context, keepAlive: head.isKeepAlive, server: server, path: request.path)
            }
        }
    }

    private func respond(
        _ response: TestHTTPServer.Response,
        context: ChannelHandlerContext,
        keepAlive: Bool,
        server: TestHTTPServer,
        path: String
    ) {
        defer { server.end() }
        guard context.channel.isActive else {
            server.recordAborted(path)
            return
        }
        var headers = HTTPHeaders(response.headers)
        // A 304 has no body, and says nothing of one (as nginx answers it).
        if !headers.contains(name: "Content-Length"), response.status != 304 {
            headers.add(name: "Content-Length", value: "\(response.body.count)")
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if let trickle = response.trickle {
            context.flush()
            trickleBody(
                response.body[...], piece: trickle.bytes, every: Self.timeAmount(trickle.every), context: context,
                server: server, path: path)
            return
        }
        let bodyBytes = response.truncateAfter.map { Array(response.body.prefix($0)) } ?? response.body
        if !bodyBytes.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bodyBytes)))), promise: nil)
        }
        if response.truncateAfter != nil {
            context.flush()
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // A response that says `Connection: close` ends its connection, as nginx's last on one does.
        if !keepAlive || headers[canonicalForm: "Connection"].contains(where: { $0.lowercased() == "close" }) {
            context.close(promise: nil)
        }
    }

    /// Sends `rest` a piece at a time; ends the response when it is all sent, or records an
    /// aborted transfer when the client has gone.
    private func trickleBody(
        _ rest: ArraySlice<UInt8>, piece: Int, every interval: TimeAmount, context: ChannelHandlerContext,
        server: TestHTTPServer, path: String
    ) {
        guard context.channel.isActive else {
            server.recordAborted(path)
            return
        }
        guard !rest.isEmpty else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let buffer = context.channel.allocator.buffer(bytes: rest.prefix(piece))
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.trickleBody(
                rest.dropFirst(piece), piece: piece, every: interval, context: context, server: server, path: path)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let silentPath { box.value?.recordHungUp(silentPath) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
