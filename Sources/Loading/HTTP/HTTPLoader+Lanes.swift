import AsyncHTTPClient
import Foundation
import GalleryConcurrency
import GalleryCore
import NIOCore
import NIOHTTP1
import Synchronization

extension HTTPLoader {
    /// What the lanes heard, gathered from their event loops and the bodies' readers.
    final class LaneResults: Sendable {
        /// The answers by position, and the positions whose answer asks for the usual path.
        let heard = Mutex<
            (
                list: [(position: Int, answer: Result<Original, any Error>)],
                left: [(position: Int, failed: LoadingError?)]
            )
        >(([], []))
        /// The readers of the bodies answered.
        let reading = Mutex<[Task<Void, Never>]>([])
        /// The 304s that left the copy as the cache had it.
        let unchanged = Atomic<Int>(0)
    }

    /// A cached copy asked about over a lane: its record and the blob's modification time.
    struct LaneItem: Sendable {
        var record: CacheRecord
        var blobModified: Double
    }

    /// Asks about the cached copies of the plain-HTTP URLs among `sources` over keep-alive lanes
    /// (``KeepAliveLane``), one lane per origin with `perHost` connections, each holding a
    /// per-host and a global slot as a request does. Each answer is handled as the usual path
    /// handles a first attempt's (``revalidate(_:copy:blobModified:expectsImage:)``) and goes into
    /// `answers`; returns the positions left for the usual path: other schemes, redirected URLs, a
    /// host resting after failures, and every URL whose answer asks for a retry (with its error,
    /// the first attempt's) or a redirect, or that got none.
    func askOverLanes(
        _ sources: [CanonicalURL], into answers: inout CopyAnswers,
        answered: @escaping @Sendable (Int, Original?) -> Void
    ) async -> [(position: Int, failed: LoadingError?)] {
        var rest: [(position: Int, failed: LoadingError?)] = []
        var byOrigin: [String: [Int]] = [:]
        for (position, source) in sources.enumerated() {
            let url = source.url
            if url.scheme == "http", let host = url.host, !host.isEmpty, url.user == nil {
                byOrigin[Self.hostKey(url), default: []].append(position)
            } else {
                rest.append((position, nil))
            }
        }
        var lanes: [(key: String, lane: KeepAliveLane<LaneItem>, positions: [Int])] = []
        let results = LaneResults()
        for (key, positions) in byOrigin.sorted(by: { $0.key < $1.key }) {
            let first = sources[positions[0]].url
            let host = first.host ?? ""
            // A host resting after failures: the usual path fails its URLs at once, as it says.
            guard (try? health.check(host: key, displayName: host, url: first.absoluteString)) != nil else {
                rest += positions.map { ($0, nil) }
                continue
            }
            let hostHeader = first.port.map { "\(Self.bracketed(host)):\($0)" } ?? Self.bracketed(host)
            let lane = KeepAliveLane<LaneItem>(
                host: host, port: first.port ?? 80, count: positions.count,
                prepare: { index in self.laneStep(for: sources[positions[index]], hostHeader: hostHeader) },
                answered: { index, item, head, body in
                    let position = positions[index]
                    let source = sources[position]
                    guard let body else {
                        let original = self.confirm(source, item: item, head: head)
                        if original.validators == item.record.validators,
                            original.contentType == item.record.contentType
                        {
                            results.unchanged.add(1, ordering: .relaxed)
                        }
                        results.heard.withLock { $0.list.append((position, .success(original))) }
                        answered(position, nil)
                        return
                    }
                    let task = Task {
                        let answer: Result<Original, any Error>
                        switch await self.answer(from: head, body: body, source: source, item: item) {
                        case .answered(let result): answer = result
                        case .again(let failed):
                            results.heard.withLock { $0.left.append((position, failed)) }
                            return
                        }
                        results.heard.withLock { $0.list.append((position, answer)) }
                        let original = try? answer.get()
                        answered(position, original.flatMap { $0.sha256 == item.record.sha256 ? nil : $0 })
                    }
                    results.reading.withLock { $0.append(task) }
                },
                sent: { self.counter.update { $0.requests += 1 } },
                deadline: TimeAmount(configuration.limits.headDeadline),
                connectTimeout: .seconds(5))
            lanes.append((key, lane, positions))
        }
        guard !lanes.isEmpty else { return rest }
        let perHost = max(1, configuration.perHost)
        let group = client.eventLoopGroup
        let limits = configuration.limits
        let left = await withTaskGroup(of: [(position: Int, failed: LoadingError?)].self) { tasks in
            for (key, lane, positions) in lanes {
                let hostLimit = hostLimit(forKey: key)
                let global = self.global
                tasks.addTask {
                    let (left, silent, answers) = await lane.run(
                        connections: perHost, on: group,
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
                    if answers > 0 { self.health.succeeded(host: key) }
                    // Silence past the head's deadline: the first attempt, failed as the client's would.
                    let unheard = silent.map { index in
                        let position = positions[index]
                        return (
                            position,
                            Optional(limits.noAnswer(since: TransferMeter(), url: sources[position].description))
                        )
                    }
                    return left.map { (positions[$0], nil) } + unheard
                }
            }
            var left: [(position: Int, failed: LoadingError?)] = []
            for await part in tasks { left += part }
            return left
        }
        // Every answer's head came before its lane ended: the bodies being read are all here.
        for task in results.reading.withLock({ $0 }) { await task.value }
        let (list, leftByAnswer) = results.heard.withLock { ($0.list, $0.left) }
        for (position, answer) in list { answers[position] = answer }
        answers.unchanged += results.unchanged.load(ordering: .relaxed)
        return rest + left + leftByAnswer
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
    /// redirect).
    private func answer(
        from head: HTTPResponseHead, body: KeepAliveLane<LaneItem>.Body, source: CanonicalURL, item: LaneItem
    ) async -> LaneAnswer {
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
            return .answered(.success(staleCopy(item.record, source: source, because: error, at: Date())))
        } catch {
            return .answered(.failure(error))
        }
    }

    /// What a lane sends for `source`, or why it sends nothing.
    private func laneStep(for source: CanonicalURL, hostHeader: String) -> KeepAliveLane<LaneItem>.Step {
        let key = source.description
        // No copy (any more): left to the usual load, as the pass leaves it.
        guard let record = cache.record(for: key), let blobModified = cache.verifiedBlob(of: record) else {
            return .skip
        }
        // Redirected last time: the usual path follows the redirects again.
        guard record.redirects.isEmpty, record.finalURL == key else { return .leave }
        let sent = configuration.credentials?.request(for: source.url) ?? (url: key, headers: [])
        guard let target = Self.requestTarget(of: sent.url) else { return .leave }
        var headers = HTTPHeaders([("Host", hostHeader)])
        headers.add(contentsOf: requestHeaders(credentials: sent.headers, record: record, expectsImage: true))
        return .ask(
            KeepAliveLane.Ask(target: target, headers: headers), LaneItem(record: record, blobModified: blobModified))
    }

    /// The copy a 304 confirmed: its record refreshed by the answer's headers.
    private func confirm(_ source: CanonicalURL, item: LaneItem, head: HTTPResponseHead) -> Original {
        counter.update { $0.notModified += 1 }
        let now = Date()
        let answer = ResponseHead(status: 304, headers: head.headers, finalURL: source.description, redirects: [])
        var refreshed = item.record.refreshed(by: answer, at: now)
        refreshed.blobModified = item.blobModified
        cache.store(refreshed)
        return use(refreshed, origin: .revalidated, at: now, source: source)
    }

    /// The request target of an absolute URL: its path and query as written ("/" when it has no
    /// path), without the fragment. Nil when `url` has no authority.
    static func requestTarget(of url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let withoutFragment = rest.prefix { $0 != "#" }
        guard let start = withoutFragment.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let target = withoutFragment[start...]
        return target.hasPrefix("?") ? "/" + target : String(target)
    }

    /// A host as the Host header writes it: an IPv6 address in brackets.
    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
