import Synchronization

/// What crossed the network during a build: for the report.
public struct TransferStatistics: Sendable, Equatable {
    /// Requests sent, retries and redirects included.
    public var requests = 0
    public var ok = 0
    public var notModified = 0
    public var bodyBytes: Int64 = 0
}

final class TransferCounter: Sendable {
    private let statistics = Mutex(TransferStatistics())

    func update(_ change: (inout TransferStatistics) -> Void) {
        statistics.withLock { change(&$0) }
    }

    var current: TransferStatistics { statistics.withLock { $0 } }
}
