import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of a program found on `PATH` (ffmpeg, ffprobe), waited for on the calling thread: a
/// thread of the imaging pool, never a cooperative one. Its standard output is kept up to a bound,
/// its standard error's last few kilobytes (where ffmpeg says what went wrong); it is killed when
/// it runs past its time limit or when `shouldStop` says the build was interrupted.
///
/// Foundation's `Process` is not used: its `waitUntilExit()` polls a run loop, and a build with
/// one transcode per core would spin every one of them. The pipes are close-on-exec, so a child
/// spawned by another thread at the same moment never holds this run's pipes open; the child
/// starts with the default signal handlers and no blocked signal, whatever the build set.
struct ChildProcess {
    struct Result {
        var status: Int32
        var output: Data
        /// The last ``errorTailLimit`` bytes of standard error, as text.
        var errorTail: String
    }

    enum Failure: Error, CustomStringConvertible {
        /// The program is not on `PATH`.
        case notFound(String)
        /// It could not be started for another reason (no process or descriptor left).
        case notStarted(String, errno: Int32)
        /// It ran past its time limit and was killed.
        case timedOut(seconds: Double, errorTail: String)
        /// The build was interrupted while it ran; it was killed.
        case stopped
        /// Its standard output passed the bound.
        case outputTooLarge(Int)
        /// Its pipes could no longer be read (`poll` failed): it was killed.
        case lost(errno: Int32)

        /// In words, as a message quotes it.
        var description: String {
            switch self {
            case .notFound(let program): "\(program) is not installed"
            case .notStarted(let program, let code):
                "\(program) could not be started (\(String(cString: strerror(code))))"
            case .timedOut(let seconds, _): "it gave no answer in \(VideoTranscoder.seconds(seconds)) and was stopped"
            case .stopped: "the build was interrupted"
            case .outputTooLarge(let limit): "it said more than \(limit) bytes"
            case .lost(let code): "its output was lost (\(String(cString: strerror(code))))"
            }
        }
    }

    static let errorTailLimit = 4096

    var program: String
    var arguments: [String]
    var timeLimit: Double
    var outputLimit = 4 << 20
    var shouldStop: @Sendable () -> Bool = { false }
    /// Takes standard output as it arrives instead of keeping it (ffmpeg's `-progress`).
    var onOutput: (@Sendable (Data) -> Void)?

    func run() throws(Failure) -> Result {
        guard let outputPipe = Self.pipe(), let errorPipe = Self.pipe() else {
            throw .notStarted(program, errno: errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 clears close-on-exec on the child's 1 and 2; the originals close at exec.
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var flags = Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        #if canImport(Darwin)
            flags |= Int16(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, flags)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = Self.spawning.withLock { _ in posix_spawnp(&pid, program, &actions, &attributes, argv, environ) }
        close(outputPipe.write)
        close(errorPipe.write)
        defer {
            close(outputPipe.read)
            close(errorPipe.read)
        }
        guard spawned == 0 else {
            throw spawned == ENOENT ? .notFound(program) : .notStarted(program, errno: spawned)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(timeLimit * 1000))
        var output = Data()
        var errorTail = Data()
        var open = [outputPipe.read, errorPipe.read]
        var ending: Failure?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func checkTime() {
            if shouldStop() {
                ending = .stopped
            } else if clock.now > deadline {
                ending = .timedOut(seconds: timeLimit, errorTail: "")
            }
        }
        while !open.isEmpty, ending == nil {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), 200)
            if ready < 0, errno != EINTR {
                // Nothing more can be read: the child is not waited for blindly.
                ending = .lost(errno: errno)
                break
            }
            for entry in polled where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == outputPipe.read {
                    if let onOutput {
                        onOutput(Data(buffer[0..<count]))
                    } else {
                        output.append(contentsOf: buffer[0..<count])
                        if output.count > outputLimit { ending = .outputTooLarge(outputLimit) }
                    }
                } else {
                    errorTail.append(contentsOf: buffer[0..<count])
                    if errorTail.count > 2 * Self.errorTailLimit { errorTail = errorTail.suffix(Self.errorTailLimit) }
                }
            }
            checkTime()
        }
        // Both pipes closed: the child is ending, or closed them and runs on; it gets until the
        // deadline, checked as before.
        var status: Int32 = 0
        while ending == nil {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno != EINTR) { break }
            usleep(20_000)
            checkTime()
        }
        if ending != nil {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        let tail = String(decoding: errorTail.suffix(Self.errorTailLimit), as: UTF8.self)
        switch ending {
        case .timedOut(let seconds, _): throw .timedOut(seconds: seconds, errorTail: tail)
        case .some(let failure): throw failure
        case nil: break
        }
        // exit status: the low 7 bits are the signal that ended it, else the code is bits 8 to 15.
        let signal = status & 0x7F
        return Result(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, output: output, errorTail: tail)
    }

    /// Held while a pipe is made and marked close-on-exec and while a child is spawned, so that no
    /// child of this process's own is spawned between the two where `pipe2(2)` is missing.
    private static let spawning = Mutex(())

    #if canImport(Glibc)
        /// `pipe2(2)`, which Swift's Glibc module does not declare: a pipe made close-on-exec at
        /// once. A child spawned by other code in the process (Foundation's `Process`: the test
        /// suite's servers) between a `pipe` and its `fcntl` kept the write end open, and a run
        /// then waited for an end of output that never came, to its time limit.
        private static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = dlsym(
            nil, "pipe2"
        )
        .map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self) }
    #endif

    /// A pipe whose ends close on exec; nil when none can be made.
    private static func pipe() -> (read: Int32, write: Int32)? {
        spawning.withLock { _ in
            var ends: [Int32] = [-1, -1]
            #if canImport(Glibc)
                if let pipe2 {
                    guard pipe2(&ends, O_CLOEXEC) == 0 else { return nil }
                    return (ends[0], ends[1])
                }
                guard Glibc.pipe(&ends) == 0 else { return nil }
            #else
                guard Darwin.pipe(&ends) == 0 else { return nil }
            #endif
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }
    }
}
