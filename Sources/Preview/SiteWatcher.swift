import Foundation
import GalleryCore
import Synchronization

/// Notices edits to a site's inputs: from the system's file notifications where it can
/// (``FileEvents``: inotify on Linux), which hear a saved caption at once however many photos
/// the folder holds; else by polling every file's size and modification time, which works on
/// every file system (inotify misses edits on some network and container mounts) but walks the
/// whole tree each time. A burst of saves within `settle` gives one change.
struct SiteWatcher: Sendable {
    /// The site folder: its own entries are watched, but hidden ones and ``excluded``.
    var site: URL
    /// The folders that are not inputs (the output and the cache), by standardized path.
    var excluded: Set<String> = []
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

    /// How the watcher hears of changes: the system's notifications, or polling and why.
    enum Method {
        case notified(FileEvents)
        case polling(reason: String?)
    }

    /// The system's notifications for the site, when they can be had.
    func method() -> Method {
        do {
            let folders = paths.filter { FileStatus($0)?.isDirectory == true }
            guard let events = try FileEvents(site: site, excluding: excluded, trees: folders) else {
                return .polling(reason: nil)
            }
            return .notified(events)
        } catch {
            return .polling(reason: error.description)
        }
    }

    /// Calls `changed` once per settled burst of changes, until the task is cancelled.
    /// `method` is how it hears of them (``method()``).
    func run(method: Method? = nil, changed: @Sendable () async -> Void) async {
        switch method ?? self.method() {
        case .notified(let events): await run(on: events, changed: changed)
        case .polling: await poll(changed: changed)
        }
    }

    private func run(on events: FileEvents, changed: @Sendable () async -> Void) async {
        events.start()
        defer { events.stop() }
        await withTaskCancellationHandler {
            // The batches the last call covered: a notification kept in the stream from a batch
            // that came while the burst settled is not a change of its own.
            var covered = 0
            for await _ in events.changes {
                guard events.batches != covered else { continue }
                // Let a burst of saves finish before acting on it: until one `settle` passes
                // without a notification.
                while !Task.isCancelled {
                    let heard = events.batches
                    do { try await Task.sleep(for: settle) } catch { return }
                    if events.batches == heard { break }
                }
                guard !Task.isCancelled else { return }
                // Taken before the call: what comes while it runs is a change after it.
                covered = events.batches
                await changed()
            }
        } onCancel: {
            events.stop()
        }
    }

    private func poll(changed: @Sendable () async -> Void) async {
        var last = fingerprint()
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
