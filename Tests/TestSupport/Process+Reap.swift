public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Process {
    /// Waits for the process to end and returns its status as `terminationStatus` gives it (the
    /// exit code, or the signal that ended it), reaping it with `waitpid(2)` on this thread.
    ///
    /// Foundation's `waitUntilExit()` spins a run loop until its SIGCHLD handler has seen the
    /// child go; a SIGCHLD it misses on a loaded machine (signals of children ending together
    /// are merged) leaves it spinning forever beside a zombie: a test run once hung that way in
    /// `NginxStore.stop()`. `waitpid` on the child's own pid cannot miss it. When Foundation has
    /// reaped it first, its own answer is used.
    @discardableResult
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while true {
            let waited = waitpid(processIdentifier, &status, 0)
            if waited == processIdentifier { break }
            if waited < 0, errno == EINTR { continue }
            // Reaped already (by Foundation's handler): it knows the status.
            waitUntilExit()
            return terminationStatus
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
