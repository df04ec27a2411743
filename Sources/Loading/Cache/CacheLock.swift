package import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive advisory lock (flock) on a file in the cache, so that two gallerygen processes
/// never write one cache. The kernel drops it if the process dies.
package final class CacheLock: Sendable {
    private let descriptor: Int32
    private let released = Mutex(false)

    /// Takes the lock, waiting up to `patience` for another process to let it go.
    package init(file: URL, patience: Duration = .seconds(10)) throws {
        let descriptor = open(file.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LoadingError(
                .cache, url: file.path, "cannot open the cache lock file: \(String(cString: strerror(errno)))")
        }
        let deadline = ContinuousClock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                throw LoadingError(
                    .cache,
                    url: file.deletingLastPathComponent().path,
                    "another gallerygen process is using this cache; wait for it to finish or set another `cache`"
                )
            }
            usleep(50_000)
        }
        self.descriptor = descriptor
    }

    /// Lets the lock go now (it also goes when the value is released).
    package func release() {
        let wasReleased = released.withLock { released in
            defer { released = true }
            return released
        }
        guard !wasReleased else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    deinit {
        release()
    }
}
