import Foundation
import GalleryCore

/// Notices edits to a site's inputs by polling their sizes and modification times: reliable on
/// every file system (inotify misses edits on some network and container mounts, and editors
/// that save by renaming), and cheap for the few hundred files of a site. A burst of saves
/// within `settle` gives one change.
struct SiteWatcher: Sendable {
    /// Files and folders to watch; folders are walked (hidden entries skipped).
    var paths: [URL]
    var interval: Duration = .milliseconds(250)
    var settle: Duration = .milliseconds(200)

    /// Size and mtime of every watched file.
    func fingerprint() -> [String: String] {
        var result: [String: String] = [:]
        let fileManager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                result[path.path] = "missing"
                continue
            }
            if isDirectory.boolValue, let enumerator = fileManager.enumerator(atPath: path.path) {
                for case let relative as String in enumerator
                where !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                    result[path.appendingPathComponent(relative).path] = Self.stamp(
                        path.appendingPathComponent(relative))
                }
            } else {
                result[path.path] = Self.stamp(path)
            }
        }
        return result
    }

    private static func stamp(_ file: URL) -> String {
        guard let status = FileStatus(file) else { return "missing" }
        return "\(status.size)-\(status.modified)"
    }

    /// Calls `changed` once per settled burst of changes, until the task is cancelled.
    func run(from start: [String: String]? = nil, changed: @Sendable () async -> Void) async {
        var last = start ?? fingerprint()
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            var current = fingerprint()
            guard current != last else { continue }
            // Let a burst of saves finish before acting on it.
            while !Task.isCancelled {
                do { try await Task.sleep(for: settle) } catch { return }
                let next = fingerprint()
                if next == current { break }
                current = next
            }
            last = current
            await changed()
        }
    }
}
