public import Foundation
import Synchronization

/// Runs the built `gallerygen` binary and collects what it did.
public struct CommandRun: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    /// The binary SwiftPM built beside the test bundle.
    public static var binary: URL {
        let folder =
            Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [
            folder, folder.deletingLastPathComponent(), folder.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let binary = candidate.appendingPathComponent("gallerygen")
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        }
        return folder.appendingPathComponent("gallerygen")
    }

    /// Runs with this process's environment, less what would make gallerygen talk to a CI, a
    /// cloud or a shard of the developer's own (`GITHUB_*`, `AWS_*`, `GALLERYGEN_*`,
    /// `CI_NODE_*`, `JOB_COMPLETION_INDEX`), plus `environment`. The wait is on a thread of its
    /// own, not on the test's cooperative threads: two tests waiting on builds there held both of
    /// a 2-core machine's, and starved every other test's tasks (a CI run's transfer watched for
    /// stalls saw its body stop for more than 0.6 s).
    public static func gallerygen(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> CommandRun {
        let foreign = ["GITHUB_", "AWS_", "GALLERYGEN_", "CI_NODE_", "JOB_COMPLETION_INDEX"]
        let environment = ProcessInfo.processInfo.environment.filter { variable in
            !foreign.contains { variable.key.hasPrefix($0) }
        }.merging(environment) { $1 }
        return try await running(binary, arguments, in: directory, environment: environment)
    }

    /// ``run(_:_:in:environment:)`` waited for on a thread of its own, off the test's cooperative
    /// threads (a tool such as exiftool, run by an async test).
    public static func running(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil
    ) async throws -> CommandRun {
        try await offTheCooperativeThreads { try run(executable, arguments, in: directory, environment: environment) }
    }

    /// Runs `executable` to its end with exactly `environment` (this process's when nil).
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil
    ) throws -> CommandRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes while the process runs, so that neither can fill up and block it.
        let errorData = Locked<Data>(nil)
        let errorRead = DispatchSemaphore(value: 0)
        let reader = Thread {
            errorData.set(error.fileHandleForReading.readDataToEndOfFile())
            errorRead.signal()
        }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let status = process.waitForExit()
        errorRead.wait()
        return CommandRun(
            status: status,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value ?? Data(), as: UTF8.self)
        )
    }
}
