public import Foundation
import Synchronization

/// The Python parts of the tests (botocore's signer, moto's S3 server), from the venv that
/// `make test` fills (`.build/browser-venv`, with moto and boto3).
public enum TestPython {
    /// The repository's root folder.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The venv's interpreter, or an error saying how to get it.
    public static func interpreter() throws -> URL {
        let python = repository.appendingPathComponent(".build/browser-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw TestPartError("no Python venv at \(python.path): run `make test`, which makes it (moto, boto3)")
        }
        return python
    }

    /// Runs `Tests/S3/<script>` with `arguments`; its standard output, or an error with its
    /// standard error.
    public static func run(_ script: String, _ arguments: [String] = []) throws -> Data {
        let script = repository.appendingPathComponent("Tests/S3/\(script)")
        let run = try CommandRun.run(try interpreter(), [script.path] + arguments)
        guard run.status == 0 else {
            throw TestPartError("\(script.lastPathComponent) failed: \(run.standardError)")
        }
        return Data(run.standardOutput.utf8)
    }
}

/// moto's S3 server on 127.0.0.1 (`Tests/S3/s3_server.py`): signatures checked for one IAM user
/// whose keys it hands out, one bucket. Stopped when released.
public final class S3TestServer: Sendable {
    public struct Details: Decodable, Sendable {
        public var endpoint: String
        public var bucket: String
        public var region: String
        public var accessKey: String
        public var secretKey: String

        enum CodingKeys: String, CodingKey {
            case endpoint, bucket, region
            case accessKey = "access_key"
            case secretKey = "secret_key"
        }
    }

    public let details: Details
    private let process: Process
    private let input: Pipe

    /// The server started, waited for on a thread of its own (``offTheCooperativeThreads``) until
    /// it says it is ready.
    public static func started() async throws -> S3TestServer {
        try await offTheCooperativeThreads { try S3TestServer() }
    }

    private init() throws {
        let process = Process()
        process.executableURL = try TestPython.interpreter()
        process.arguments = [TestPython.repository.appendingPathComponent("Tests/S3/s3_server.py").path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // One line of JSON once it is ready; a server that never gets there is stopped.
        let deadline = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: deadline)
        defer { deadline.cancel() }
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let details = try? JSONDecoder().decode(Details.self, from: line) else {
            process.terminate()
            throw TestPartError("moto's S3 server did not start (is moto installed? run `make test`)")
        }
        self.details = details
        self.process = process
        self.input = input
    }

    /// The environment a build needs to use the bucket.
    public func environment(secretKey: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": details.accessKey, "AWS_SECRET_ACCESS_KEY": secretKey ?? details.secretKey,
            "AWS_REGION": details.region, "AWS_ENDPOINT_URL": details.endpoint,
        ]
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitForExit()
    }
}
