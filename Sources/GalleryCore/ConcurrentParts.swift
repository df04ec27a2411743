import Foundation
import Synchronization

/// Runs `body` at once on contiguous parts of `0..<count`, a part per core, and returns its
/// results in the order of the parts: for the CPU-bound passes over 100,000 records that are not
/// async (the record files' readers and writers). A pass shorter than two parts of `minimumPart`
/// is one part, run on the caller's thread; no part is empty.
package func concurrentParts<Result: Sendable>(
    of count: Int, minimumPart: Int = 1, _ body: @Sendable (Range<Int>) -> Result
) -> [Result] {
    let most = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / max(1, minimumPart)))
    guard most > 1 else { return [body(0..<count)] }
    let size = (count + most - 1) / most
    // As many as it takes at that size: none left empty (5 in 4 parts of 2 is 3 parts).
    let parts = (count + size - 1) / size
    let results = Mutex<[Result?]>(Array(repeating: nil, count: parts))
    DispatchQueue.concurrentPerform(iterations: parts) { part in
        let result = body(part * size..<min(count, (part + 1) * size))
        results.withLock { $0[part] = result }
    }
    return results.withLock { $0.compactMap { $0 } }
}
