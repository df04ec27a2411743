import AsyncHTTPClient
import Foundation
import GalleryConcurrency
import GalleryCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

extension HTTPLoader {
    /// What the lanes heard, gathered from their event loops and the bodies' readers.
    final class LaneResults: Sendable {
        let heard = Mutex(PassAnswers())
        /// The readers of the bodies answered, and whether the pass was cancelled.
        private let readers = Mutex<(tasks: [Task<Void, Never>], cancelled: Bool)>(([], false))

        /// Keeps a reader to wait for; cancels it at once if the pass has been cancelled.
        func adopt(_ reader: Task<Void, Never>) {
            let cancelled = readers.withLock { readers in
                readers.tasks.append(reader)
                return readers.cancelled
            }
            if cancelled { reader.cancel() }
        }

        func cancelReaders() {
            let tasks = readers.withLock { readers in
                readers.cancelled = true
                return readers.tasks
            }
            for task in tasks { task.cancel() }
        }

        /// Waits for every reader kept so far.
        func waitForReaders() async {
            for task in readers.withLock({ $0.tasks }) { await task.value }
        }
    }

    /// Whether a lane's host has been silent since its last answer (set at the start, so that
    /// the first answer clears what earlier requests in the build counted against it).
    final class LaneHealth: Sendable {
        let since = Atomic<Bool>(true)
    }

    /// A cached copy asked about over a lane: its record and the blob's modification time.
    struct LaneItem: Sendable {
        var record: CacheRecord
        var blobModified: Double
    }

    /// Whether the copy of `url` may be asked about over a lane: plain HTTP, no user in the URL.
    static func goesOverLane(_ url: URL) -> Bool {
        url.scheme == "http" && !(url.host ?? "").isEmpty && url.user == nil
    }

    /// Asks about the cached copies at `byOrigin`'s positions of `sources` over keep-alive lanes
    /// (``KeepAliveLane``), one lane per origin with `perHost` connections, each holding a
    /// per-host and a global slot as a request does. Each answer is handled as the usual path
    /// handles a first attempt's (``revalidate(_:copy:blobModified:expectsImage:after:)``); left
    /// for the usual path: a host resting after failures, URLs redirected last time, and every
    /// URL whose answer asks for a retry (with its error, the first attempt's) or a redirect, or
    /// that got none.
    func askOverLanes(
        _ byOrigin: [String: [Int]], of sources: [CanonicalURL], answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> PassAnswers {
        guard !byOrigin.isEmpty else { return PassAnswers() }
        let limits = configuration.limits
        var resting: [(position: Int, failed: LoadingError?)] = []
        var lanes: [(key: String, lane: KeepAliveLane<LaneItem>, positions: [Int])] = []
        let results = LaneResults()
        for (key, positions) in byOrigin.sorted(by: { $0.key < $1.key }) {
            let first = sources[positions[0]].url
            let host = first.host ?? ""
            // A host resting after failures: the usual path fails its URLs at once, as it says.
            guard (try? health.check(host: key, displayName: host, url: first.absoluteString)) != nil else {
                resting += positions.map { ($0, nil) }
                continue
            }
            // The blobs vouched for here, on the cooperative threads: a blob whose time changed is
            // hashed again, which is no work for an event loop.
            let blobs = await positions.concurrentMap { position in
                self.cache.record(for: sources[position].description).flatMap { self.cache.verifiedBlob(of: $0) }
            }
            let hostHeader = first.port.map { "\(Self.bracketed(host)):\($0)" } ?? Self.bracketed(host)
            // The host's health as the usual path keeps it, request by request: each silence
            // counts against it when it happens, and the next answer clears the count.
            let failing = LaneHealth()
            let lane = KeepAliveLane<LaneItem>(
                host: host, port: first.port ?? 80, count: positions.count,
                prepare: { index in
                    self.laneStep(for: sources[positions[index]], blobModified: blobs[index], hostHeader: hostHeader)
                },
                answered: { index, item, head, body in
                    let position = positions[index]
                    let source = sources[position]
                    if failing.since.exchange(false, ordering: .relaxed) { self.health.succeeded(host: key) }
                    guard let body else {
                        let original = self.confirm(source, item: item, head: head)
                        let unchanged = Self.leftAsItWas(item.record, after: original)
                        results.heard.withLock { heard in
                            heard.list.append((position, .success(original)))
                            if unchanged { heard.unchanged += 1 }
                        }
                        answered(position, nil)
                        return
                    }
                    results.adopt(
                        Task {
                            switch await self.answer(from: head, body: body, source: source, item: item) {
                            case .answered(let answer):
                                results.heard.withLock { $0.list.append((position, answer)) }
                                let original = try? answer.get()
                                answered(position, original.flatMap { $0.sha256 == item.record.sha256 ? nil : $0 })
                            case .again(let failed):
                                results.heard.withLock { $0.left.append((position, failed)) }
                            }
                        })
                },
                sent: { self.counter.update { $0.requests += 1 } },
                stopsOn: { RetryPolicy.isRetryable(status: $0) },
                silence: { index in
                    let url = sources[positions[index]].description
                    self.health.failed(host: key, because: limits.noAnswer(since: TransferMeter(), url: url))
                    failing.since.store(true, ordering: .relaxed)
                    return (try? self.health.check(host: key, displayName: host, url: url)) == nil
                },
                deadline: TimeAmount(limits.headDeadline),
                connectTimeout: .seconds(5))
            lanes.append((key, lane, positions))
        }
        let perHost = max(1, configuration.perHost)
        let left = await withTaskCancellationHandler {
            let left = await withTaskGroup(of: [(position: Int, failed: LoadingError?)].self) { tasks in
                for (key, lane, positions) in lanes {
                    let hostLimit = hostLimit(forKey: key)
                    let global = self.global
                    tasks.addTask {
                        let (left, silent, _) = await lane.run(
                            connections: perHost, on: MultiThreadedEventLoopGroup.singleton,
                            permit: {
                                guard (try? await hostLimit.acquire()) != nil else { return false }
                                guard (try? await global.acquire()) != nil else {
                                    hostLimit.release()
                                    return false
                                }
                                return true
                            },
                            release: {
                                global.release()
                                hostLimit.release()
                            })
                        // Silence past the head's deadline: the first attempt, failed as the
                        // client's would (and counted against the host when it happened).
                        let unheard = silent.map { index in
                            let position = positions[index]
                            let error = limits.noAnswer(since: TransferMeter(), url: sources[position].description)
                            return (position, Optional(error))
                        }
                        return left.map { (positions[$0], nil) } + unheard
                    }
                }
                var left: [(position: Int, failed: LoadingError?)] = []
                for await part in tasks { left += part }
                return left
            }
            // Every answer's head came before its lane ended: the bodies being read are all here.
            await results.waitForReaders()
            return left
        } onCancel: {
            results.cancelReaders()
        }
        var heard = results.heard.withLock { $0 }
        heard.left += resting + left
        return heard
    }

    /// What a lane's answer other than a 304 came to.
    enum LaneAnswer {
        case answered(Result<Original, any Error>)
        /// Asked again by the usual path: after this retryable error, or from the start (a
        /// redirect).
        case again(LoadingError?)
    }

    /// What a lane's answer other than a 304 gives, as the usual path's first attempt would: the
    /// copy replaced, a stale copy with a warning, a failure, or another attempt (a retry, a
    /// redirect). The body is abandoned when done with, read or not.
    private func answer(
        from head: HTTPResponseHead, body: LaneBody, source: CanonicalURL, item: LaneItem
    ) async -> LaneAnswer {
        defer { body.abandon() }
        let url = source.url
        let response = HTTPClientResponse(
            version: head.version, status: head.status, headers: head.headers, body: .stream(body))
        let meter = TransferMeter()
        meter.headReceived()
        do {
            let outcome: AttemptOutcome
            do {
                outcome = try await answer(
                    response, url: url, source: source, record: item.record, expectsImage: true, redirects: [],
                    meter: meter)
            } catch {
                throw Self.loadingError(for: error, url: url)
            }
            switch outcome {
            case .downloaded(let original):
                await share(source.description)
                return .answered(.success(original))
            case .redirect, .notModified:
                return .again(nil)
            }
        } catch let error as LoadingError where error.isRetryable {
            return .again(error)
        } catch let error as LoadingError where error.allowsStaleCopy {
            return .answered(
                .success(staleCopy(item.record, source: source, because: error, at: configuration.clock.now)))
        } catch {
            return .answered(.failure(error))
        }
    }

    /// What a lane sends for `source`, or why it sends nothing.
    private func laneStep(for source: CanonicalURL, blobModified: Double?, hostHeader: String)
        -> KeepAliveLane<LaneItem>.Step
    {
        let key = source.description
        // No copy (any more): left to the usual load, as the pass leaves it.
        guard let blobModified, let record = cache.record(for: key) else { return .skip }
        // Redirected last time: the usual path follows the redirects again.
        guard record.redirects.isEmpty, record.finalURL == key else { return .leave }
        let sent =
            configuration.credentials?.request(for: source.url, at: configuration.clock.now) ?? (url: key, headers: [])
        guard let target = Self.requestTarget(of: sent.url) else { return .leave }
        var headers = HTTPHeaders([("Host", hostHeader)])
        headers.add(contentsOf: requestHeaders(credentials: sent.headers, record: record, expectsImage: true))
        return .ask(
            KeepAliveLane.Ask(target: target, headers: headers), LaneItem(record: record, blobModified: blobModified))
    }

    /// The copy a 304 confirmed: its record refreshed by the answer's headers.
    private func confirm(_ source: CanonicalURL, item: LaneItem, head: HTTPResponseHead) -> Original {
        counter.update { $0.notModified += 1 }
        let now = configuration.clock.now
        let answer = ResponseHead(status: 304, headers: head.headers, finalURL: source.description, redirects: [])
        var refreshed = item.record.refreshed(by: answer, at: now)
        refreshed.blobModified = item.blobModified
        cache.store(refreshed)
        return use(refreshed, origin: .revalidated, at: now, source: source)
    }

    /// The request target of an absolute URL: its path and query as written ("/" when it has no
    /// path), without the fragment. Nil when `url` has no authority. (Read byte by byte: once a
    /// request, and Foundation's `range(of:)` was half of what preparing one cost.)
    static func requestTarget(of url: String) -> String? {
        let utf8 = url.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            utf8[utf8.index(after: colon)...].starts(with: "//".utf8)
        else { return nil }
        let authority = utf8.index(colon, offsetBy: 3)
        let end = utf8[authority...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        guard
            let start = utf8[authority..<end].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
        else { return "/" }
        let target = String(url[start..<end])
        return utf8[start] == UInt8(ascii: "?") ? "/" + target : target
    }

    /// A host as the Host header writes it: an IPv6 address in brackets.
    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
