package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes files so that a reader sees the old content or the new, never half of either:
/// write a temporary file beside the target, flush it to disk, rename it into place.
package enum AtomicFile {
    /// A temporary name beside `target`, unique to this process and call. Leftovers of a killed
    /// process start with `.tmp-`, which is how clean-up recognises them.
    package static func temporaryURL(for target: URL) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(temporaryName(for: target.lastPathComponent))
    }

    /// The name of ``temporaryURL(for:)``'s file, for a target named `name`: within the 255 bytes
    /// of a file name whenever `name` is (a long name's end gives way to a hash of it).
    package static func temporaryName(for name: String) -> String {
        temporaryName(for: name, prefix: temporaryPrefix())
    }

    /// A prefix of temporary names unique to this process and call (`.tmp-PID-RANDOM-`): names
    /// made with it and anything unique to each file (``temporaryName(for:prefix:)``) are unique.
    package static func temporaryPrefix() -> String {
        ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))-"
    }

    /// ``temporaryName(for:)`` with a prefix of ``temporaryPrefix()``'s form given.
    package static func temporaryName(for name: String, prefix: String) -> String {
        let room = 255 - prefix.utf8.count
        guard name.utf8.count > room else { return prefix + name }
        let hash = String(fnv1a64(name), radix: 16)
        var kept = Substring(name)
        while kept.utf8.count > room - hash.count - 1 { kept = kept.dropLast() }
        return prefix + kept + "-" + hash
    }

    /// True for the names ``temporaryURL(for:)`` makes.
    package static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".tmp-")
    }

    /// Writes `data` to `target` atomically, creating the folder when needed.
    package static func write(_ data: Data, to target: URL) throws {
        try replace(target) { temporary in try data.write(to: temporary) }
    }

    /// Writes the bytes `produce` hands its sink, a part at a time, to `target` atomically: a
    /// large file is never whole in memory, and a failure part-way (a full disk) leaves the file
    /// in place as it was.
    package static func write(to target: URL, _ produce: (([UInt8]) throws -> Void) throws -> Void) throws {
        try replace(target) { temporary in
            // Created by a write, so that a failure is the system's own error.
            try Data().write(to: temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try produce { try handle.write(contentsOf: $0) }
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
        }
    }

    /// Replaces `target` with the file `fill` writes at a temporary name beside it (the folder
    /// created when needed); on any failure the temporary file is removed and `target` left as it was.
    private static func replace(_ target: URL, fill: (URL) throws -> Void) throws {
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        let temporary = temporaryURL(for: target)
        do {
            try fill(temporary)
            try commit(temporary, to: target)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Flushes a finished temporary file to disk and renames it to `target` (replacing it).
    /// A folder in the target's place (left by a user or another tool) is removed first: every
    /// caller writes a file whose name is its own (a cache entry, an output file), and a folder
    /// there would fail that file on every build.
    package static func commit(_ temporary: URL, to target: URL) throws {
        try synchronize(temporary)
        var renamed = rename(temporary.path, target.path) == 0
        if !renamed, FileStatus(target)?.isDirectory == true, !FileStatus.isSymbolicLink(target) {
            try FileManager.default.removeItem(at: target)
            renamed = rename(temporary.path, target.path) == 0
        }
        guard renamed else {
            let reason = String(cString: strerror(errno))
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot rename into \(target.path): \(reason)"]
            )
        }
    }

    /// fsync(2) on a file, so that a rename after it never exposes an empty file after a crash.
    package static func synchronize(_ file: URL) throws {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot open \(file.path)"])
        }
        defer { close(descriptor) }
        _ = fsync(descriptor)
    }
}
