import GalleryCore
import Synchronization

/// Hosts that keep failing (refused connections, timeouts): after `failureLimit` failed attempts
/// in a row, a host is left alone for `restFor` and every request for it fails at once, so a
/// feed of 5,000 photos on a dead host costs a few timeouts, not 5,000 of them. Any answer from
/// the host (even an error status) counts as alive.
final class HostHealth: Sendable {
    struct Configuration: Sendable, Equatable {
        var failureLimit = 3
        var restFor: Duration = .seconds(120)
    }

    private struct Entry {
        var failuresInARow = 0
        var downSince: ContinuousClock.Instant?
        var lastFailure = ""
    }

    let configuration: Configuration
    private let hosts = Mutex<[String: Entry]>([:])
    /// The time, injected so that tests can let a host's rest run out without waiting for it.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.configuration = configuration
        self.now = now
    }

    /// Throws the host's failure when it is resting.
    func check(host: String, displayName: String, url: String) throws(LoadingError) {
        let entry = hosts.withLock { $0[host] }
        guard let entry, let since = entry.downSince else { return }
        guard now() - since < configuration.restFor else {
            // Rested: the next attempt decides again, from one failure short of the limit.
            hosts.withLock {
                $0[host]?.downSince = nil
                $0[host]?.failuresInARow = configuration.failureLimit - 1
            }
            return
        }
        throw LoadingError(
            .hostDown, url: url,
            "not asked: \(displayName) failed \(configuration.failureLimit) times or more in a row "
                + "(\(entry.lastFailure))")
    }

    func succeeded(host: String) {
        hosts.withLock { _ = $0.removeValue(forKey: host) }
    }

    func failed(host: String, because error: LoadingError) {
        hosts.withLock { hosts in
            var entry = hosts[host] ?? Entry()
            entry.failuresInARow += 1
            // The kind, not the words: the words carry timings and addresses, and every photo
            // this host fails for later repeats them.
            entry.lastFailure = error.code == .timedOut ? "no answer in time" : "cannot connect"
            if entry.failuresInARow >= configuration.failureLimit, entry.downSince == nil {
                entry.downSince = now()
            }
            hosts[host] = entry
        }
    }
}
