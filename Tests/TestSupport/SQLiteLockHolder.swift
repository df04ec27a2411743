public import Foundation

/// Another program holding an SQLite database locked for writing (Python's sqlite3 module, in a
/// transaction begun with `BEGIN EXCLUSIVE`), until ``release()``.
public final class SQLiteLockHolder: Sendable {
    private let process: Process
    private let input: Pipe

    public init(database: URL) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            sys.stdin.read()
            connection.execute("ROLLBACK")
            """,
            database.path,
        ]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.readData(ofLength: 7)
        guard String(decoding: line, as: UTF8.self) == "locked\n" else {
            process.terminate()
            throw TestPartError("python3 could not lock \(database.path)")
        }
    }

    /// Ends the transaction and the program.
    public func release() {
        try? input.fileHandleForWriting.close()
        process.waitForExit()
    }
}
