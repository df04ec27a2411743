public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// WsgiDAV (PyPI, in the venv `make test` fills) on 127.0.0.1 serving ``root`` as a WebDAV
/// share, behind HTTP Basic for one user when a password is given. Stopped when released.
public final class WebDAVServer: Sendable {
    public let folder: TemporaryDirectory
    public let port: Int
    private let process: Process

    /// The folder the share holds: files put here are what PROPFIND lists.
    public var root: URL { folder.file("share") }
    public var url: String { "http://127.0.0.1:\(port)/" }

    /// `ports` names the ports to try (free ones by default).
    public init(user: String? = nil, password: String? = nil, ports: () throws -> Int = NginxStore.freePort) throws {
        folder = try TemporaryDirectory("gallerygen-webdav")
        try FileManager.default.createDirectory(at: folder.file("share"), withIntermediateDirectories: true)
        let wsgidav = try TestPython.interpreter().deletingLastPathComponent().appendingPathComponent("wsgidav")
        guard FileManager.default.isExecutableFile(atPath: wsgidav.path) else {
            throw TestPartError("no wsgidav at \(wsgidav.path): run `make test`, which installs it")
        }
        // A port found free can be taken before WsgiDAV binds it, by a server of a test running
        // beside this one: WsgiDAV counts as started once it listens on the port itself, and a
        // port it could not have is passed over for another.
        var attempts = 0
        while true {
            let port = try ports()
            let process = try Self.launch(wsgidav, folder: folder, port: port, user: user, password: password)
            let deadline = Date().addingTimeInterval(30)
            var ready = false
            while process.isRunning, Date() < deadline, !ready {
                ready =
                    NginxStore.accepts(port: port)
                    && TestSockets.listens(process: process.processIdentifier, port: port)
                if !ready { Thread.sleep(forTimeInterval: 0.05) }
            }
            if ready {
                self.port = port
                self.process = process
                return
            }
            // Not once it has ended on its own: its pid may be another process's by now.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            attempts += 1
            if attempts == 5 {
                let log = (try? String(contentsOf: folder.file("wsgidav.log"), encoding: .utf8)) ?? ""
                throw TestPartError("wsgidav did not start (last on port \(port)): \(log.suffix(2_000))")
            }
        }
    }

    private static func launch(
        _ wsgidav: URL, folder: TemporaryDirectory, port: Int, user: String?, password: String?
    ) throws -> Process {
        var configuration = """
            host: 127.0.0.1
            port: \(port)
            verbose: 1
            provider_mapping:
              "/": "\(folder.file("share").path)"
            http_authenticator:
              accept_basic: true
              accept_digest: false
              default_to_digest: false

            """
        if let user, let password {
            configuration += """
                simple_dc:
                  user_mapping:
                    "*":
                      "\(user)":
                        password: "\(password)"

                """
        } else {
            configuration += "simple_dc:\n  user_mapping:\n    \"*\": true\n"
        }
        let file = try folder.write(configuration, to: "wsgidav.yaml")
        let process = Process()
        process.executableURL = wsgidav
        process.arguments = ["-c", file.path]
        process.standardOutput = FileHandle.nullDevice
        // What it says, kept for the error when it cannot start (this try's alone).
        let log = folder.file("wsgidav.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        return process
    }

    /// Writes `data` at `path` under the share, making its folders.
    public func put(_ data: Data, at path: String) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    deinit {
        // WsgiDAV (cheroot) may take its time over SIGTERM: SIGKILL ends it at once.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
