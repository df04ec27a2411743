import Foundation
import GalleryCore
import Reporting
import Synchronization

/// Items done per stage, counted from many tasks, and when each stage's work first began and
/// last ended (loading and imaging overlap, so each has its own span).
final class StageProgress: Sendable {
    private struct Stage {
        var done = 0
        var began: ContinuousClock.Instant?
        var ended: ContinuousClock.Instant?
    }

    private let clock: ContinuousClock
    private let stages = Mutex<[BuildStage: Stage]>([:])

    init(clock: ContinuousClock) {
        self.clock = clock
    }

    /// Work of `stage` starts now (only the first call counts).
    func begin(_ stage: BuildStage) {
        let now = clock.now
        stages.withLock { stages in
            if stages[stage]?.began == nil { stages[stage, default: Stage()].began = now }
        }
    }

    /// One more item of `stage` is done; returns how many are.
    func increment(_ stage: BuildStage) -> Int {
        let now = clock.now
        return stages.withLock { stages in
            var entry = stages[stage] ?? Stage()
            entry.done += 1
            entry.began = entry.began ?? now
            entry.ended = now
            stages[stage] = entry
            return entry.done
        }
    }

    /// From the first start to the last end of `stage`; 0 when it did nothing.
    func seconds(of stage: BuildStage) -> Double {
        stages.withLock { stages in
            guard let began = stages[stage]?.began, let ended = stages[stage]?.ended else { return 0 }
            return (ended - began).seconds
        }
    }
}
