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

    /// WsgiDAV started, waited for on a thread of its own (``offTheCooperativeThreads``) until it
    /// accepts connections.
    public static func started(user: String? = nil, password: String? = nil) async throws -> WebDAVServer {
        try await offTheCooperativeThreads { try WebDAVServer(user: user, password: password) }
    }

    private init(user: String?, password: String?) throws {
        folder = try TemporaryDirectory("gallerygen-webdav")
        try FileManager.default.createDirectory(at: folder.file("share"), withIntermediateDirectories: true)
        port = try NginxStore.freePort()
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
        let wsgidav = try TestPython.interpreter().deletingLastPathComponent().appendingPathComponent("wsgidav")
        guard FileManager.default.isExecutableFile(atPath: wsgidav.path) else {
            throw TestPartError("no wsgidav at \(wsgidav.path): run `make test`, which installs it")
        }
        process = Process()
        process.executableURL = wsgidav
        process.arguments = ["-c", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while !NginxStore.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw TestPartError("wsgidav did not start on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
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
        process.waitForExit()
    }
}
