import Foundation

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
/// one transcode per core would spin every one of them.
struct ChildProcess {
    struct Result {
        var status: Int32
        var output: Data
        /// The last ``errorTailLimit`` bytes of standard error, as text.
        var errorTail: String
    }

    enum Failure: Error {
        /// The program is not on `PATH` (or could not be started).
        case notFound(String)
        /// It ran past its time limit and was killed.
        case timedOut(seconds: Double, errorTail: String)
        /// The build was interrupted while it ran; it was killed.
        case stopped
        /// Its standard output passed the bound.
        case outputTooLarge(Int)
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
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw .notFound(program) }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw .notFound(program)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        for descriptor in outputPipe + errorPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw .notFound(program)
        }
        defer {
            close(outputPipe[0])
            close(errorPipe[0])
        }
        var output = Data()
        var errorTail = Data()
        var open = [outputPipe[0], errorPipe[0]]
        let deadline = Date().addingTimeInterval(timeLimit)
        var ending: Failure?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty, ending == nil {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), 200)
            if ready < 0, errno != EINTR { break }
            for entry in polled where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == outputPipe[0] {
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
            if shouldStop() {
                ending = .stopped
            } else if Date() > deadline {
                ending = .timedOut(seconds: timeLimit, errorTail: "")
            }
        }
        if ending != nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
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
}
