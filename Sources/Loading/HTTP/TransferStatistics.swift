import Synchronization

/// What crossed the network during a build: for the report.
package struct TransferStatistics: Sendable, Equatable {
    /// Requests sent, retries and redirects included.
    package var requests = 0
    package var ok = 0
    package var notModified = 0
    package var bodyBytes: Int64 = 0
}

final class TransferCounter: Sendable {
    private let statistics = Mutex(TransferStatistics())

    func update(_ change: (inout TransferStatistics) -> Void) {
        statistics.withLock { change(&$0) }
    }

    var current: TransferStatistics { statistics.withLock { $0 } }
}
