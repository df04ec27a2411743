import Foundation
import GalleryCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file the build puts in the output folder.
struct OutputFile: Sendable {
    enum Content: Sendable {
        case bytes([UInt8])
        /// A copy of a cache file whose name says its content: an existing file of that name and
        /// size is the same file.
        case copy(of: URL, size: Int64)
    }

    /// Relative to the output folder.
    var path: String
    var content: Content
}

/// Writes the site into the output folder: each file atomically and only when its content
/// changed (an unchanged file keeps its mtime), then removes what the previous build wrote and
/// this one does not, then writes the manifest last.
struct OutputWriter {
    let directory: URL

    struct Result {
        var written = 0
        var bytesWritten: Int64 = 0
        var removed = 0
    }

    /// The manifest of the build before, if the output has a readable one.
    func previousManifest() -> Manifest? {
        let file = directory.appendingPathComponent(Manifest.fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? Manifest.decode(data)
    }

    func write(_ files: [OutputFile], manifest: Manifest, previous: Manifest?) throws -> Result {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        removeLeftovers()
        var result = Result()
        for file in files {
            let target = directory.appendingPathComponent(file.path)
            switch file.content {
            case .bytes(let bytes):
                guard try writeIfChanged(bytes, to: target) else { continue }
                result.bytesWritten += Int64(bytes.count)
            case .copy(let source, let size):
                if FileStatus(target)?.size == size { continue }
                result.bytesWritten += size
                try fileManager.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                let temporary = AtomicFile.temporaryURL(for: target)
                do {
                    try fileManager.copyItem(at: source, to: temporary)
                    try AtomicFile.commit(temporary, to: target)
                } catch {
                    try? fileManager.removeItem(at: temporary)
                    throw error
                }
            }
            result.written += 1
        }
        let produced = Set(files.map(\.path))
        for stale in previous?.files ?? [] where !produced.contains(stale) && Self.isSafeRelativePath(stale) {
            let target = directory.appendingPathComponent(stale)
            if (try? fileManager.removeItem(at: target)) != nil { result.removed += 1 }
        }
        // The manifest, last. When it equals the previous one, the file already says it.
        if manifest != previous
            || !fileManager.fileExists(atPath: directory.appendingPathComponent(Manifest.fileName).path)
        {
            try writeIfChanged([UInt8](try manifest.encoded()), to: directory.appendingPathComponent(Manifest.fileName))
        }
        return result
    }

    /// Writes atomically unless the file already holds exactly these bytes; true if it wrote.
    @discardableResult
    private func writeIfChanged(_ bytes: [UInt8], to target: URL) throws -> Bool {
        if let existing = FileManager.default.contents(atPath: target.path), Self.same(existing, bytes) { return false }
        try AtomicFile.write(Data(bytes), to: target)
        return true
    }

    /// Byte equality with memcmp (comparing `Data` element by element costs more than the read).
    private static func same(_ data: Data, _ bytes: [UInt8]) -> Bool {
        guard data.count == bytes.count else { return false }
        return data.withUnsafeBytes { old in
            bytes.withUnsafeBytes { new in
                guard let a = old.baseAddress, let b = new.baseAddress else { return true }
                return memcmp(a, b, new.count) == 0
            }
        }
    }

    /// Temporary files a killed build left in the output folder or its `images/` and `assets/`.
    private func removeLeftovers() {
        for folder in [
            directory, directory.appendingPathComponent("images"), directory.appendingPathComponent("assets"),
        ] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where AtomicFile.isTemporaryName(name) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    /// A manifest is read from disk: never let one of its entries point outside the output folder.
    static func isSafeRelativePath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/").contains("..")
    }
}
