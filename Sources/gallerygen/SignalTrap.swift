import Dispatch
import Foundation
import GalleryBuild

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a build as a task that SIGINT and SIGTERM cancel; a second signal exits at once.
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
        let sources = [SIGINT, SIGTERM].map { signalNumber -> DispatchSourceSignal in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            let received = SignalCount()
            source.setEventHandler {
                if received.increment() > 1 { _exit(130) }
                task.cancel()
            }
            source.resume()
            return source
        }
        let result = await task.value
        for source in sources { source.cancel() }
        if task.isCancelled, case .success = result { return .failure(.interrupted) }
        return result
    }
}

/// How many signals have arrived.
private final class SignalCount: @unchecked Sendable {
    // Touched only from the signal source's handler, which GCD never runs concurrently with itself.
    private var count = 0

    func increment() -> Int {
        count += 1
        return count
    }
}
