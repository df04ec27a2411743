import GalleryBuild
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a build as a task that SIGINT and SIGTERM cancel; a second signal exits at once. The
/// signals come from swift-service-lifecycle's `UnixSignalsSequence`, the mechanism `serve`'s
/// service group uses too.
enum SignalTrap {
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
            }
        }
        let result = await task.value
        watcher.cancel()
        if task.isCancelled, case .success = result { return .failure(BuildError.interrupted) }
        return result
    }
}
