package import Foundation
import GalleryConcurrency
import GalleryCore
import Synchronization

/// The remote cache tier (`remote_cache:`, `--remote-cache URL`): a second tier behind the local
/// cache, shared by every machine that builds the site. It holds two kinds of object:
///
/// - `v1/urls/<sha256 of the URL>`: what a build learned of one photo URL (validators, freshness
///   headers, the hash and size of the bytes), so that another machine can revalidate or trust
///   it without downloading;
/// - `v1/sets/<set key>`: one original's thumbnail set, addressed by the original's hash and the
///   recipe, packed as one object (its record, then its files).
///
/// Every object is wrapped in an envelope whose first line carries the payload's length and
/// SHA-256; a read that does not match is a miss (and the build replaces the object when it
/// has made its content). With a ``SigningKey`` the line also carries an HMAC of the object's
/// key and hash, and an object whose MAC does not check is ignored in the same way: whoever can
/// write the store without the key cannot change what a page shows. Nothing read from the tier is needed: a store that is down, slow or
/// returns garbage costs time and a warning. After a store has failed to answer at all (refused,
/// silent), or has answered errors ``failureLimit`` times in a row, the build stops asking it.
/// Writes put whole objects under content-derived keys, so two machines writing one object
/// write the same thing.
package final class RemoteCache: Sendable {
    package enum Kind: String, Sendable {
        case url = "urls"
        case set = "sets"
    }

    package let store: any RemoteStore
    /// The site's secret: objects are signed with it, and only signed objects are taken.
    let signingKey: SigningKey?
    /// Errors in a row after which the store is left alone for the rest of the build.
    let failureLimit: Int
    private let state = Mutex(State())
    /// Requests in flight at once: a build of 100,000 photos asks for all of them at the start,
    /// and requests queued in the client's pool would run out of time there.
    private let requests: AsyncSemaphore

    /// What the tier did in this build, for the report.
    package struct Statistics: Sendable, Equatable {
        /// URL records found and verified.
        package var recordsFound = 0
        /// Thumbnail sets found and verified (their contents are checked again by their reader).
        package var setsFound = 0
        /// Objects asked for and not there.
        package var misses = 0
        /// Objects written.
        package var uploads = 0
        /// Requests that failed, and objects that failed verification.
        package var failures = 0
        /// Objects that could not be written: work another machine will not find.
        package var writeFailures = 0
    }

    private struct State {
        var statistics = Statistics()
        var errorsInARow = 0
        /// Why the store is no longer asked; nil while it is.
        var disabled: String?
        var problems: [String: Int] = [:]
        var examples: [String: String] = [:]
        /// Keys known to be in the store (found or written by this build).
        var present: Set<String> = []

        /// One more object with `problem`, `example` kept for the first.
        mutating func count(_ problem: String, example: String) {
            problems[problem, default: 0] += 1
            if examples[problem] == nil { examples[problem] = example }
        }
    }

    /// The largest object read (a set of big AVIF and JPEG thumbnails stays far below).
    package static let maxObjectBytes = 256 << 20
    /// Bytes of objects held in memory at once, however many requests are in flight: a store
    /// that answers with objects near ``maxObjectBytes`` makes the build read them one at a time.
    static let memoryBudget = 512 << 20
    private let budget: ByteBudget
    /// When to try a request again.
    let retry: RetryPolicy

    package init(
        store: any RemoteStore, signingKey: SigningKey? = nil, concurrency: Int = 16, failureLimit: Int = 8,
        retry: RetryPolicy = RetryPolicy(attempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(2)),
        memoryBudget: Int = RemoteCache.memoryBudget
    ) {
        self.store = store
        self.signingKey = signingKey
        self.failureLimit = failureLimit
        self.retry = retry
        self.requests = AsyncSemaphore(permits: max(1, concurrency))
        self.budget = ByteBudget(capacity: memoryBudget)
    }

    package var statistics: Statistics { state.withLock { $0.statistics } }

    /// Starts a new build on a tier that outlives builds (`gallerygen serve`): counts and
    /// problems start from nothing, and a store that failed is asked again.
    package func beginBuild() {
        state.withLock { $0 = State() }
    }

    /// What went wrong with the tier, in a few lines for the report; empty when nothing did.
    package var warnings: [String] {
        state.withLock { state in
            var lines: [String] = []
            let name = "remote cache \(store.displayName)"
            for (problem, count) in state.problems.sorted(by: { $0.key < $1.key }) {
                let example = state.examples[problem].map { " (e.g. \($0))" } ?? ""
                lines.append("\(name): \(count == 1 ? "1 object" : "\(count) objects") \(problem)\(example)")
            }
            if let disabled = state.disabled {
                lines.append("\(name): \(disabled); the rest of this build ran without it")
            }
            return lines
        }
    }

    // MARK: Reading and writing objects

    /// Sets are made by this version's imaging code (placeholder, transparency, camera details
    /// as it reads them), which their key does not capture: each version has its own.
    private func key(_ kind: Kind, _ name: String) -> String {
        switch kind {
        case .url: "v1/urls/\(name)"
        case .set: "v1/sets/\(GalleryVersion.current)/\(name)"
        }
    }

    /// What `use` makes of the verified payload of an object, or nil (not there, unreadable, or
    /// not matching its envelope; the last two are counted for the warning). The payload's bytes
    /// count against the tier's memory budget until `use` returns.
    package func read<Value>(_ kind: Kind, _ name: String, _ use: (Data) -> Value?) async -> Value? {
        let key = key(kind, name)
        guard isEnabled else { return nil }
        let object: (data: Data, reserved: Int)?
        do {
            object = try await attempt { [store, budget] in
                try await store.get(key, limit: Self.maxObjectBytes, budget: budget)
            }
        } catch {
            failed(error, key: key)
            return nil
        }
        answered()
        guard let object else {
            state.withLock { $0.statistics.misses += 1 }
            return nil
        }
        defer { budget.release(object.reserved) }
        guard let payload = verified(object.data, kind: kind, key: key) else { return nil }
        return use(payload)
    }

    private func verified(_ data: Data, kind: Kind, key: String) -> Data? {
        switch Envelope.open(data, kind: kind.rawValue, key: key, signingKey: signingKey) {
        case .success(let payload):
            state.withLock {
                switch kind {
                case .url: $0.statistics.recordsFound += 1
                case .set: $0.statistics.setsFound += 1
                }
                $0.present.insert(key)
            }
            return payload
        case .failure(let problem):
            note(problem.description, key: key)
            return nil
        }
    }

    /// Writes an object (its envelope added). Failures are counted, never thrown.
    package func write(_ kind: Kind, _ name: String, payload: Data) async {
        let key = key(kind, name)
        guard isEnabled else {
            state.withLock { $0.statistics.writeFailures += 1 }
            return
        }
        do {
            let sealed = Envelope.seal(payload, kind: kind.rawValue, key: key, signingKey: signingKey)
            try await attempt { [store] in try await store.put(key, sealed) }
        } catch {
            failed(error, key: key)
            if !(error is CancellationError) { state.withLock { $0.statistics.writeFailures += 1 } }
            return
        }
        answered()
        state.withLock {
            $0.statistics.uploads += 1
            $0.present.insert(key)
        }
    }

    /// Whether the store has the object, asked only when this build has not already read or
    /// written it; nil when the store could not say.
    package func contains(_ kind: Kind, _ name: String) async -> Bool? {
        let key = key(kind, name)
        if state.withLock({ $0.present.contains(key) }) { return true }
        guard isEnabled else { return nil }
        do {
            let exists = try await attempt { [store] in try await store.exists(key) }
            answered()
            if exists { state.withLock { _ = $0.present.insert(key) } }
            return exists
        } catch {
            failed(error, key: key)
            return nil
        }
    }

    /// The tier is still asked (it has not failed for good in this build).
    package var isEnabled: Bool { state.withLock { $0.disabled == nil } }

    /// Runs one request with a permit, again after a dropped connection or a server error
    /// (GET, HEAD and PUT of whole objects are safe to repeat; S3 asks clients to retry 500 and
    /// 503), with the loader's backoff.
    private func attempt<Value: Sendable>(_ request: @escaping @Sendable () async throws -> Value) async throws
        -> Value
    {
        var number = 1
        while true {
            do {
                return try await requests.withPermit(request)
            } catch let error as RemoteStoreError where number < retry.attempts && error.isRetryable {
                guard isEnabled, let delay = retry.delay(afterAttempt: number, retryAfter: nil) else { throw error }
                try await Task.sleep(for: delay)
                number += 1
            }
        }
    }

    private func answered() {
        state.withLock { $0.errorsInARow = 0 }
    }

    private func failed(_ error: any Error, key: String) {
        if error is CancellationError { return }
        let storeError = error as? RemoteStoreError
        state.withLock { state in
            state.statistics.failures += 1
            guard state.disabled == nil else { return }
            state.errorsInARow += 1
            let reason = storeError?.description ?? "\(key): \(error)"
            switch storeError?.kind {
            case .unreachable?:
                // Refused or silent, after retries: a store that is down would cost every
                // request its timeout. Two in a row, and it is left alone.
                state.count("could not be read or written (no answer)", example: reason)
                if state.errorsInARow >= 2 { state.disabled = "unreachable (\(reason))" }
            case .status(let status)?:
                state.count("could not be read or written (HTTP \(status))", example: key)
                if state.errorsInARow >= failureLimit {
                    state.disabled = "\(state.errorsInARow) requests in a row failed (the last: \(reason))"
                }
            case .tooLarge?, nil:
                state.count("could not be read", example: reason)
            }
        }
    }

    /// An object read whole that is not what its envelope says (damaged, truncated, or not one
    /// of gallerygen's), or a payload its reader rejected.
    package func note(_ problem: String, key: String) {
        state.withLock { state in
            state.statistics.failures += 1
            state.present.remove(key)
            state.count(problem, example: key)
        }
    }

    /// A payload of `kind` read from the tier turned out unusable (its reader's checks failed):
    /// counted like a damaged object; the build makes it and writes it again.
    package func reject(_ kind: Kind, _ name: String, because problem: String) {
        state.withLock {
            switch kind {
            case .url: $0.statistics.recordsFound -= 1
            case .set: $0.statistics.setsFound -= 1
            }
        }
        note(problem, key: key(kind, name))
    }
}

/// The first line of every remote object: `gallerygen-remote 1 <kind> <length> <sha256>`, then,
/// when the site has a signing key, ` <mac>` (the HMAC of the kind, the object's key in the store
/// and the hash, so that a signed object cannot be moved under another key), `\n`, then the
/// payload.
enum Envelope {
    enum Problem: Error, CustomStringConvertible {
        case notOurs
        case truncated
        case damaged
        case unsigned

        var description: String {
            switch self {
            case .notOurs: "were not gallerygen objects of the expected kind; replaced"
            case .truncated: "were truncated or padded; replaced"
            case .damaged: "did not match their recorded hash; replaced"
            case .unsigned:
                "were not signed with this site's key (\(SigningKey.variable)); ignored and replaced"
            }
        }
    }

    private static func macParts(kind: String, key: String, sha256: String) -> [String] {
        ["gallerygen-remote 1", kind, key, sha256]
    }

    static func seal(_ payload: Data, kind: String, key: String, signingKey: SigningKey?) -> Data {
        let sha256 = sha256Hex(of: payload)
        var line = "gallerygen-remote 1 \(kind) \(payload.count) \(sha256)"
        if let signingKey { line += " " + signingKey.mac(macParts(kind: kind, key: key, sha256: sha256)) }
        var data = Data((line + "\n").utf8)
        data.append(payload)
        return data
    }

    static func open(_ data: Data, kind: String, key: String, signingKey: SigningKey?) -> Result<Data, Problem> {
        guard let newline = data.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { return .failure(.notOurs) }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 5 || fields.count == 6, fields[0] == "gallerygen-remote", fields[1] == "1",
            fields[2] == kind, let length = Int(fields[3]), fields[4].utf8.count == 64
        else { return .failure(.notOurs) }
        let payload = data[data.index(after: newline)...]
        guard payload.count == length else { return .failure(.truncated) }
        let sha256 = sha256Hex(of: payload)
        guard sha256 == fields[4] else { return .failure(.damaged) }
        if let signingKey {
            guard fields.count == 6,
                signingKey.verify(String(fields[5]), macParts(kind: kind, key: key, sha256: sha256))
            else { return .failure(.unsigned) }
        }
        return .success(Data(payload))
    }
}
