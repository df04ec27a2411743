import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Conditional GETs to one plain-HTTP origin over a few keep-alive connections, each connection
/// driven on its event loop from one answer to the next request: no Swift task, no future chain
/// and no client state machine per request. At 100,000 cached photos a `--refresh` is a pass of
/// 304s, and through AsyncHTTPClient most of its CPU went to the client and the hops between its
/// event loops and Swift's pool (BENCHMARKS.md, "Every entry revalidated").
///
/// A 304 is handed over once its answer has ended; any other answer at its head, with its body
/// as a stream that the connection fills; the next request waits for the reader to be done with
/// it (one body at a time in memory, as a request through the client holds its slot until its
/// body is stored), and a body its reader leaves unread closes the connection. An item whose request got no answer
/// (a broken connection, silence past the deadline) is left to the loader's usual path, which
/// asks again (silence counted as the first attempt). An answer that says the host is busy or
/// rate-limiting (`stopsOn`) stops the lane: the rest goes the usual way, with its back-off.
/// The host is resolved once and every connection goes to that address.
struct KeepAliveLane<Item: Sendable>: Sendable {
    /// What to send for one item: the request target (path and query) and every header.
    struct Ask: Sendable {
        var target: String
        var headers: HTTPHeaders
    }

    enum Step: Sendable {
        /// Send this; `item` goes back to ``answered`` with the answer.
        case ask(Ask, Item)
        /// Nothing to ask: not answered, and not left either.
        case skip
        /// Not for the lane: left to the usual path.
        case leave
    }

    let host: String
    let port: Int
    let count: Int
    /// Called on an event loop when the item at an index is taken.
    let prepare: @Sendable (Int) -> Step
    /// Called on an event loop with each answer: a 304 once it has ended (no body), any other
    /// at its head, with its body to come.
    let answered: @Sendable (Int, Item, HTTPResponseHead, LaneBody?) -> Void
    /// Called on an event loop as each request goes out.
    let sent: @Sendable () -> Void
    /// The statuses that stop the lane (the host busy or rate-limiting).
    let stopsOn: @Sendable (Int) -> Bool
    /// Called on an event loop when the head of the item at an index has not come within the
    /// deadline; true stops the lane (the host now rests after failures).
    let silence: @Sendable (Int) -> Bool
    let deadline: TimeAmount
    let connectTimeout: TimeAmount

    /// Runs `connections` connections over the items, each after `permit` and until `release`
    /// (opened again when the server ends a kept-alive one), and returns the indices left to the
    /// usual path (asked without an answer, or taken by no connection), those of them whose head
    /// did not come within the deadline (the first attempt, failed), and the number of answers.
    /// Cancelled, the connections end at their next tick and every item not answered is left; a
    /// host that cannot be resolved leaves every item.
    func run(
        connections: Int, on group: any EventLoopGroup, permit: @escaping @Sendable () async -> Bool,
        release: @escaping @Sendable () -> Void
    ) async -> (left: [Int], silent: [Int], answers: Int) {
        let shared = LaneState(count: count)
        // Resolved off the event loops and the cooperative threads (getaddrinfo blocks).
        let address: SocketAddress
        do {
            address = try await NIOThreadPool.singleton.runIfActive { [host, port] in
                try SocketAddress.makeAddressResolvingHost(host, port: port)
            }
        } catch {
            return (Array(0..<count), [], 0)
        }
        let ended = await withTaskCancellationHandler {
            await withTaskGroup(of: LaneEnding.self) { tasks in
                for _ in 0..<max(1, min(connections, count)) {
                    let loop = group.next()
                    tasks.addTask {
                        guard await permit() else { return LaneEnding() }
                        defer { release() }
                        return await self.runConnection(to: address, on: loop, shared: shared)
                    }
                }
                var all = LaneEnding()
                for await part in tasks { all.add(part) }
                return all
            }
        } onCancel: {
            shared.cancel()
        }
        return (ended.left + shared.untaken(), ended.silent, shared.answers.load(ordering: .relaxed))
    }

    /// One connection after another on `loop`, while the last one ended in a way that asks for
    /// another (the server closed a connection that had answered) and items are left.
    private func runConnection(to address: SocketAddress, on loop: any EventLoop, shared: LaneState) async
        -> LaneEnding
    {
        var all = LaneEnding()
        while !shared.stopped.load(ordering: .relaxed), !shared.exhausted {
            let ended = loop.makePromise(of: LaneEnding.self)
            let connection = LaneConnection(lane: self, shared: shared, ended: ended)
            let bootstrap = ClientBootstrap(group: loop)
                .connectTimeout(connectTimeout)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(connection)
                    }
                }
            do {
                _ = try await bootstrap.connect(to: address).get()
            } catch {
                // Refused or unreachable: the usual path reports it, with its retries.
                try? await loop.submit { connection.endUnconnected() }.get()
                _ = try? await ended.futureResult.get()
                break
            }
            guard let ending = try? await ended.futureResult.get() else { break }
            all.add(ending)
            if !ending.reconnect || shared.exhausted { break }
        }
        return all
    }
}

/// What one connection of a lane ends with: the items left without an answer, those whose
/// answer did not come within the deadline, and whether to open another connection.
struct LaneEnding: Sendable {
    var left: [Int] = []
    var silent: [Int] = []
    var reconnect = false

    mutating func add(_ other: LaneEnding) {
        left += other.left
        silent += other.silent
    }
}

/// The items' queue and the lane's count of answers, shared by its connections.
final class LaneState: Sendable {
    let count: Int
    let next = Atomic<Int>(0)
    /// No more items taken; the requests under way are answered.
    let stopped = Atomic<Bool>(false)
    /// The connections close at their next tick, answered or not.
    let cancelled = Atomic<Bool>(false)
    let answers = Atomic<Int>(0)

    init(count: Int) { self.count = count }

    func cancel() {
        stopped.store(true, ordering: .relaxed)
        cancelled.store(true, ordering: .relaxed)
    }

    /// Every item taken.
    var exhausted: Bool { next.load(ordering: .relaxed) >= count }

    /// The next item's index, nil when none is left or the lane has stopped.
    func take() -> Int? {
        guard !stopped.load(ordering: .relaxed) else { return nil }
        let index = next.add(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }

    /// The items no connection took.
    func untaken() -> [Int] {
        Array(min(next.load(ordering: .relaxed), count)..<count)
    }
}

/// One keep-alive connection of a ``KeepAliveLane``: sends a request, reads its answer to the
/// end, sends the next. All of it on the channel's event loop.
final class LaneConnection<Item: Sendable>: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let lane: KeepAliveLane<Item>
    private let shared: LaneState
    private let ended: EventLoopPromise<LaneEnding>
    /// The item waiting for its answer's head, and when its request went.
    private var current: (index: Int, item: Item, sentAt: NIODeadline)?
    /// A 304's head, until its end.
    private var notModified: HTTPResponseHead?
    /// Another answer's body, being read; its head says whether the connection stays open.
    private var body: (continuation: LaneBody.Continuation, flow: LaneBody.Flow, keepAlive: Bool)?
    /// A body has ended and its reader is not done with it yet: whether the connection stays
    /// open once it is.
    private var waitingForReader: Bool?
    private var left: [Int] = []
    private var silent: [Int] = []
    private var answers = 0
    private var finished = false
    private var tick: RepeatedTask?

    init(lane: KeepAliveLane<Item>, shared: LaneState, ended: EventLoopPromise<LaneEnding>) {
        self.lane = lane
        self.shared = shared
        self.ended = ended
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let every = min(lane.deadline, .milliseconds(250))
        tick = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in
            let (connection, context) = loopBound.value
            connection.check(context)
        }
        sendNext(context)
    }

    /// The deadline of the head waited for, and the lane's cancellation: either ends the
    /// connection for good, its unanswered request left to the usual path. (A body's limits are
    /// its reader's, who abandons it when done.)
    private func check(_ context: ChannelHandlerContext) {
        guard !finished else { return }
        if body == nil, let current, .now() - current.sentAt > lane.deadline {
            silent.append(current.index)
            self.current = nil
            if lane.silence(current.index) { shared.stopped.store(true, ordering: .relaxed) }
            finish(context, reconnect: false)
        } else if shared.cancelled.load(ordering: .relaxed) {
            finish(context, reconnect: false)
        }
    }

    /// Ends a connection that never opened (if nothing else has ended it).
    func endUnconnected() {
        guard !finished else { return }
        finished = true
        ended.succeed(LaneEnding(left: left, silent: silent))
    }

    private func sendNext(_ context: ChannelHandlerContext) {
        while let index = shared.take() {
            switch lane.prepare(index) {
            case .skip: continue
            case .leave: left.append(index)
            case .ask(let ask, let item):
                current = (index, item, .now())
                notModified = nil
                lane.sent()
                let request = HTTPRequestHead(
                    version: .http1_1, method: .GET, uri: ask.target, headers: ask.headers)
                context.write(wrapOutboundOut(.head(request)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
        }
        finish(context, reconnect: false)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        switch unwrapInboundIn(data) {
        case .head(let head) where head.status == .notModified:
            notModified = head
        case .head(let head):
            guard let current else { return }
            self.current = nil
            answers += 1
            shared.answers.add(1, ordering: .relaxed)
            if lane.stopsOn(Int(head.status.code)) { shared.stopped.store(true, ordering: .relaxed) }
            let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
            // A reader that stops early (a body it refuses) ends the connection.
            let channel = context.channel
            continuation.onTermination = { termination in
                if case .cancelled = termination { channel.close(promise: nil) }
            }
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let flow = LaneBody.Flow(channel: channel) {
                let (connection, context) = loopBound.value
                connection.readerDone(context)
            }
            body = (continuation, flow, head.isKeepAlive)
            lane.answered(current.index, current.item, head, LaneBody(stream: stream, flow: flow))
        case .body(let bytes):
            guard let body else { return }
            body.continuation.yield(bytes)
            body.flow.arrived(bytes.readableBytes, on: context.channel)
        case .end:
            if let body {
                self.body = nil
                body.continuation.finish()
                body.flow.ended(on: context.channel)
                waitingForReader = body.keepAlive
                return
            }
            guard let current, let head = notModified else { return }
            self.current = nil
            notModified = nil
            answers += 1
            shared.answers.add(1, ordering: .relaxed)
            lane.answered(current.index, current.item, head, nil)
            goOn(context, keepAlive: head.isKeepAlive)
        }
    }

    /// On the loop, when the reader of a body that has ended is done with it.
    private func readerDone(_ context: ChannelHandlerContext) {
        guard !finished, let keepAlive = waitingForReader else { return }
        waitingForReader = nil
        goOn(context, keepAlive: keepAlive)
    }

    /// After an answer: the next request, or (the server ending the connection, or a body read
    /// to its close) another connection.
    private func goOn(_ context: ChannelHandlerContext, keepAlive: Bool) {
        if keepAlive, context.channel.isActive { sendNext(context) } else { finish(context, reconnect: true) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A server may close a kept-alive connection between two requests: a connection that
        // had answered is opened again.
        finish(context, reconnect: answers > 0)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        body?.continuation.finish(throwing: error)
        body = nil
        context.close(promise: nil)
    }

    /// Ends the connection: the request without an answer is left to the usual path, a body
    /// being read ends short.
    private func finish(_ context: ChannelHandlerContext, reconnect: Bool) {
        guard !finished else { return }
        finished = true
        if let current { left.append(current.index) }
        current = nil
        body?.continuation.finish(throwing: ChannelError.eof)
        body = nil
        tick?.cancel()
        tick = nil
        context.close(promise: nil)
        ended.succeed(
            LaneEnding(left: left, silent: silent, reconnect: reconnect && !shared.stopped.load(ordering: .relaxed)))
    }
}

/// An answer's body as a lane's connection reads it. The connection stops reading while more than
/// ``Flow/highWater`` bytes wait for the reader, and reads again once it is under
/// ``Flow/lowWater``: a photo or a clip that arrives faster than the disk takes it waits in the
/// socket, not in memory.
struct LaneBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    typealias Continuation = AsyncThrowingStream<ByteBuffer, any Error>.Continuation

    let stream: AsyncThrowingStream<ByteBuffer, any Error>
    let flow: Flow

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator
        let flow: Flow

        mutating func next() async throws -> ByteBuffer? {
            let bytes = try await base.next()
            if let bytes { flow.taken(bytes.readableBytes) }
            return bytes
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), flow: flow) }

    /// Done with the body, read or not (``Flow/abandon()``).
    func abandon() { flow.abandon() }

    /// The bytes read but not yet taken, and whether the connection has stopped reading.
    final class Flow: Sendable {
        static let highWater = 4 << 20
        static let lowWater = 1 << 20

        private let channel: any Channel
        /// Run on the channel's loop when the reader is done with a body that has ended.
        private let done: @Sendable () -> Void
        private let waiting = Atomic<Int>(0)
        private let paused = Atomic<Bool>(false)
        /// Set on the channel's loop when the body has ended: the connection has gone on.
        private let over = Atomic<Bool>(false)

        init(channel: any Channel, done: @escaping @Sendable () -> Void = {}) {
            self.channel = channel
            self.done = done
        }

        /// On the channel's loop, as bytes arrive: past the high water, reading stops. Paused
        /// first and checked again after, so that a reader who took everything in between is not
        /// left waiting on a connection that no longer reads.
        func arrived(_ count: Int, on channel: any Channel) {
            guard waiting.add(count, ordering: .relaxed).newValue > Self.highWater,
                !paused.load(ordering: .relaxed)
            else { return }
            paused.store(true, ordering: .sequentiallyConsistent)
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            if waiting.load(ordering: .sequentiallyConsistent) < Self.lowWater,
                paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
            {
                try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
            }
        }

        /// On the channel's loop, when the body has ended: the connection will read the next
        /// answer. (Reading is turned on whatever `paused` says: a reader that drained the body
        /// just before may have cleared it, and its resume is then skipped as late.)
        func ended(on channel: any Channel) {
            over.store(true, ordering: .sequentiallyConsistent)
            paused.store(false, ordering: .sequentiallyConsistent)
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }

        /// By the reader, as it takes bytes: under the low water, reading starts again.
        func taken(_ count: Int) {
            guard waiting.subtract(count, ordering: .sequentiallyConsistent).newValue < Self.lowWater,
                paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
            else { return }
            let channel = self.channel
            channel.eventLoop.execute {
                // Late, after the body ended: the next body's reading is not this one's to start.
                guard !self.over.load(ordering: .sequentiallyConsistent) else { return }
                try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
                channel.read()
            }
        }

        /// By the reader, when done with the body (read or not): a body that has ended lets its
        /// connection send the next request; one that has not closes the connection, which would
        /// otherwise wait on a reader that has gone.
        func abandon() {
            let channel = self.channel
            channel.eventLoop.execute {
                if self.over.load(ordering: .sequentiallyConsistent) {
                    self.done()
                } else {
                    channel.close(promise: nil)
                }
            }
        }
    }
}
