public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// nginx on 127.0.0.1 as a remote cache (`dav_methods PUT; create_full_put_path on;`): the
/// objects are files under ``store``, which a test can damage; the access log says which
/// request got which answer. `failing` makes it answer every request with that status instead.
public final class NginxStore: Sendable {
    public struct LoggedRequest: Sendable, Equatable {
        public var method: String
        public var status: Int
        public var path: String
    }

    public let folder: TemporaryDirectory
    public let port: Int
    private let process = Mutex<Process?>(nil)
    private let failing: Int?

    /// Where the objects are on disk: `store/cache/v1/...` for the URL ``url``.
    public var store: URL { folder.file("store") }
    /// The remote cache's URL, for `remote_cache:`.
    public var url: String { "http://127.0.0.1:\(port)/cache/" }

    /// nginx started, on a thread of its own while it is waited for (``offTheCooperativeThreads``):
    /// `ports` names the ports to try (free ones by default).
    public static func started(
        failing: Int? = nil, ports: @escaping @Sendable () throws -> Int = NginxStore.freePort
    ) async throws -> NginxStore {
        try await offTheCooperativeThreads { try NginxStore(failing: failing, ports: ports) }
    }

    private init(failing: Int?, ports: () throws -> Int) throws {
        // nginx may serve as another user: nothing under /root, and folders it may write.
        folder = try TemporaryDirectory("gallerygen-nginx")
        self.failing = failing
        for name in ["store", "tmp", "logs"] {
            try FileManager.default.createDirectory(at: folder.file(name), withIntermediateDirectories: true)
            chmod(folder.file(name).path, 0o777)
        }
        chmod(folder.url.path, 0o755)
        // A port found free can be taken before nginx binds it, by a server of a test running
        // beside this one, which then answers in nginx's place (the likely cause of a 404 to
        // every PUT, seen once): nginx is started on fresh ports until it listens on one itself.
        var attempts = 0
        while true {
            let port = try ports()
            do {
                let nginx = try Self.launch(folder: folder, port: port, failing: failing)
                self.port = port
                process.withLock { $0 = nginx }
                return
            } catch let error as PortTaken {
                attempts += 1
                if attempts == 5 { throw TestPartError("nginx found no free port: \(error.log)") }
            }
        }
    }

    private struct PortTaken: Error {
        var log: String
    }

    deinit {
        stop()
    }

    /// Starts nginx again, after ``stop()``, on its port, and waits (off the cooperative threads)
    /// until it accepts connections.
    public func restarted() async throws {
        try await offTheCooperativeThreads { try self.start() }
    }

    private func start() throws {
        do {
            let nginx = try Self.launch(folder: folder, port: port, failing: failing)
            process.withLock { $0 = nginx }
        } catch let error as PortTaken {
            throw TestPartError("nginx could not have its port \(port) again: \(error.log)")
        }
    }

    /// Runs nginx on `port` and returns once it listens there: once it has written its pid file,
    /// which it does after binding its sockets, and the port accepts connections.
    private static func launch(folder: TemporaryDirectory, port: Int, failing: Int?) throws -> Process {
        let root = folder.url.path
        let location =
            failing.map { "return \($0);" }
            ?? "dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:r;"
        let configuration = """
            daemon off;
            master_process off;
            pid \(root)/nginx.pid;
            error_log \(root)/logs/error.log warn;
            events { worker_connections 512; }
            http {
              log_format counts '$request_method $status $request_uri';
              access_log \(root)/logs/access.log counts;
              client_body_temp_path \(root)/tmp; proxy_temp_path \(root)/tmp; fastcgi_temp_path \(root)/tmp;
              uwsgi_temp_path \(root)/tmp; scgi_temp_path \(root)/tmp;
              client_max_body_size 0;
              keepalive_requests 100000;
              server {
                listen 127.0.0.1:\(port);
                root \(root)/store;
                location / { \(location) }
              }
            }
            """
        try configuration.write(to: folder.file("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = Process()
        nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        nginx.arguments = ["-p", root, "-c", folder.file("nginx.conf").path, "-e", "\(root)/logs/error.log"]
        nginx.standardOutput = FileHandle.nullDevice
        nginx.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
            throw TestPartError("nginx is not installed: run `make test`, which installs nginx-light")
        }
        // What nginx logs from now on (the log is kept over restarts).
        let logFile = folder.file("logs/error.log")
        let logged = (try? Data(contentsOf: logFile).count) ?? 0
        let log = { String(decoding: ((try? Data(contentsOf: logFile)) ?? Data()).dropFirst(logged), as: UTF8.self) }
        let pidFile = folder.file("nginx.pid")
        try? FileManager.default.removeItem(at: pidFile)
        try nginx.run()
        func ended() {
            // Not once it has ended on its own: its pid may be another process's by now.
            if nginx.isRunning { kill(nginx.processIdentifier, SIGKILL) }
            nginx.waitForExit()
        }
        for _ in 0..<400 {
            let pid = (try? String(contentsOf: pidFile, encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines)
            if pid == String(nginx.processIdentifier), accepts(port: port) { return nginx }
            // nginx tries a taken port for 2.5 s before it gives up.
            if log().contains("Address already in use") {
                ended()
                throw PortTaken(log: log())
            }
            guard nginx.isRunning else { throw TestPartError("nginx did not start: \(log())") }
            usleep(10_000)
        }
        ended()
        throw TestPartError("nginx did not listen on port \(port)")
    }

    /// Stops nginx at once, as a crash would (SIGKILL; it runs as one process, so nothing of it
    /// is left serving).
    public func stop() {
        guard
            let nginx = process.withLock({ process in
                defer { process = nil }
                return process
            })
        else { return }
        kill(nginx.processIdentifier, SIGKILL)
        nginx.waitForExit()
    }

    /// Every request so far, in order.
    public var log: [LoggedRequest] {
        let text = (try? String(contentsOf: folder.file("logs/access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let status = Int(fields[1]) else { return nil }
            return LoggedRequest(method: String(fields[0]), status: status, path: String(fields[2]))
        }
    }

    /// The object files of one kind (`urls`, `sets`), sorted.
    public func objects(_ kind: String) -> [URL] {
        let folder = store.appendingPathComponent("cache/v1/\(kind)")
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walk.compactMap { $0 as? String }.sorted().map { folder.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    public static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nobody listens on now (the kernel's choice for port 0).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestPartError("cannot find a free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct TestPartError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
