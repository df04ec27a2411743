import Foundation
import GalleryBuild
import GalleryCore
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a build as a task that SIGINT and SIGTERM cancel; a second signal exits at once, and so
/// does a build still running ``gracePeriod`` after the first (a call stuck in the kernel, on a
/// hung network file system, cannot keep a CI job alive past its cancel). The signals come from
/// swift-service-lifecycle's `UnixSignalsSequence`, the mechanism `serve`'s service group uses
/// too.
enum SignalTrap {
    /// How long an interrupted build may take to stop cleanly (remove what it staged, save the
    /// cache's index) before the process exits without it.
    static let gracePeriod: Duration = .seconds(10)

    static func run<Value: Sendable>(_ body: @escaping @Sendable () async throws(BuildError) -> Value) async -> Result<
        Value, BuildError
    > {
        let task = Task { () async -> Result<Value, BuildError> in
            do throws(BuildError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let watcher = Task {
            var received = 0
            for await _ in signals {
                received += 1
                // The first asks the build to stop cleanly; a second means now.
                if received > 1 { _exit(130) }
                task.cancel()
                // A thread of its own: a stuck call may hold every thread of the task pool.
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: gracePeriod.seconds)
                    let message = "gallerygen: the build did not stop within \(gracePeriod) of the signal; exiting\n"
                    _ = message.withCString { write(2, $0, strlen($0)) }
                    _exit(130)
                }
            }
        }
        let result = await task.value
        watcher.cancel()
        if task.isCancelled, case .success = result { return .failure(BuildError.interrupted) }
        return result
    }
}
