import CVips
import Foundation
import GalleryCore
import Synchronization

/// Gives each photo the messages libvips wrote about it, and only those.
///
/// libvips keeps one error buffer for the whole process and its warnings go to one log, so with
/// several photos in work at once a failure's text could be another photo's, or two of them run
/// together ("unknown libvips error" one build, a neighbour's message the next). Work runs
/// shared; a piece of work that failed, or during which libvips logged anything, is run again
/// alone, with nothing else inside libvips, and its messages are read from that run. Failures and
/// warnings are rare, so the replays cost little, and the same inputs give the same words.
enum VipsMessages {
    /// What libvips logged (warnings and messages) since the last ``take()``.
    private static let log = LockedLog()
    private static let gate = ExclusiveGate()

    /// Installs the log handler; called once, when libvips starts.
    static func install() {
        gg_vips_capture_log { _, _, message, _ in
            guard let message else { return }
            VipsMessages.log.append(String(cString: message))
        }
    }

    /// Runs `body` and returns its value with the warnings libvips logged about it. `name`
    /// replaces `file`'s path in every message (the cache's path is not the photo's name).
    static func attributed<Value>(
        file: URL, name: String, _ body: () throws(ImagingError) -> Value
    ) throws(ImagingError) -> (image: Value, warnings: [String]) {
        gate.enterShared()
        let logged = log.count
        let outcome: Result<Value, ImagingError>
        do {
            outcome = .success(try body())
        } catch {
            outcome = .failure(error)
        }
        let quiet = log.count == logged
        gate.leaveShared()
        if case .success(let value) = outcome, quiet { return (value, []) }

        gate.enterExclusive()
        defer { gate.leaveExclusive() }
        vips_error_clear()
        _ = log.take()
        let replay: Result<Value, ImagingError>
        do {
            replay = .success(try body())
        } catch {
            replay = .failure(error)
        }
        // libvips says a thing once per read of the file: each line once, in the order it came.
        var seen: Set<String> = []
        let warnings = log.take().filter { seen.insert($0).inserted }.map {
            "libvips: " + $0.trimmingWhitespace().replacingOccurrences(of: file.path, with: name)
        }
        vips_error_clear()
        switch replay {
        case .success(let value):
            return (value, warnings)
        case .failure(var error):
            error.message = error.message.replacingOccurrences(of: file.path, with: name)
            throw error
        }
    }
}

/// Many holders at once, or one alone; a waiting exclusive holder goes before new shared ones,
/// so that a replay is not starved by a steady stream of work. The counts change only while
/// `condition` is held, so a waiter cannot miss the broadcast that frees it.
private final class ExclusiveGate: Sendable {
    private struct State {
        var shared = 0
        var exclusive = false
        var exclusiveWaiting = 0
    }

    private let condition = NSCondition()
    private let state = Mutex(State())

    private func waiting(until enter: (inout State) -> Bool) {
        condition.lock()
        while !state.withLock({ enter(&$0) }) { condition.wait() }
        condition.unlock()
    }

    private func changing(_ change: (inout State) -> Void) {
        condition.lock()
        state.withLock { change(&$0) }
        condition.broadcast()
        condition.unlock()
    }

    func enterShared() {
        waiting { state in
            guard !state.exclusive, state.exclusiveWaiting == 0 else { return false }
            state.shared += 1
            return true
        }
    }

    func leaveShared() {
        changing { $0.shared -= 1 }
    }

    func enterExclusive() {
        changing { $0.exclusiveWaiting += 1 }
        waiting { state in
            guard !state.exclusive, state.shared == 0 else { return false }
            state.exclusiveWaiting -= 1
            state.exclusive = true
            return true
        }
    }

    func leaveExclusive() {
        changing { $0.exclusive = false }
    }
}

/// The lines libvips logged, appended from any of its threads.
private final class LockedLog: Sendable {
    private let lines = Mutex<(count: Int, pending: [String])>((0, []))

    func append(_ line: String) {
        lines.withLock {
            $0.count += 1
            $0.pending.append(line)
        }
    }

    var count: Int { lines.withLock { $0.count } }

    func take() -> [String] {
        lines.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }
}
