package import Foundation
import Synchronization

/// The time of day as the build and the loader read it: when a copy was fetched, whether it is
/// still fresh, when a thumbnail set was last used, the date a request is signed with.
///
/// The one place that reads the system's clock (``system``); everything else is handed a clock,
/// so that a test of freshness or eviction moves time on (``advance(by:)``) instead of
/// sleeping through it.
package final class WallClock: Sendable, Equatable {
    private let time: Mutex<Date>?

    private init(time: Date?) {
        self.time = time.map { Mutex($0) }
    }

    /// The system's clock.
    package static let system = WallClock(time: nil)

    /// A clock that stays at `time` until it is set or moved on: for tests.
    package static func stopped(at time: Date) -> WallClock {
        WallClock(time: time)
    }

    package var now: Date {
        time?.withLock { $0 } ?? Date()
    }

    /// Moves a stopped clock on by `interval` seconds; the system's cannot be moved.
    package func advance(by interval: TimeInterval) {
        precondition(time != nil, "the system's clock cannot be moved")
        time?.withLock { $0 += interval }
    }

    /// Two clocks are the same clock, not two clocks that read the same time.
    package static func == (left: WallClock, right: WallClock) -> Bool {
        left === right
    }
}
