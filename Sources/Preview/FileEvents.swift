import Foundation
import GalleryCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The system's notifications of changes under a few folders (inotify on Linux): a change is
/// heard as it is made, without walking the tree, which at 100,000 photos took longer than the
/// interval the watcher polled at. One thread waits in poll(2) for the notifications (off the
/// cooperative pool); each batch is said on ``changes``. A folder created under a watched one
/// is watched from then on.
///
/// `nil` where there is no such service (macOS: the watcher polls there) or when the system
/// will not watch every folder (`fs.inotify.max_user_watches`): then the watcher polls, and says
/// why.
final class FileEvents: @unchecked Sendable {
    /// One element per batch of notifications.
    let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    #if canImport(Glibc)
        private let descriptor: Int32
        /// Watch descriptors and the folder each watches, and whether it is the site folder
        /// itself (whose own entries are filtered by name). Touched by the reading thread only,
        /// after init.
        private var folders: [Int32: (path: String, isSite: Bool)] = [:]
    #endif
    private let excludedNames: Set<String>
    /// Folders never watched (the output and the cache, wherever they are).
    private let excludedPaths: Set<String>
    private let stopped = Mutex<Bool>(false)
    private let counter = Atomic<Int>(0)

    /// How many batches of relevant notifications have been heard so far.
    var batches: Int { counter.load(ordering: .relaxed) }
    /// The last paths heard of (at most 16), oldest first.
    var lastHeard: [String] { heard.withLock { $0 } }
    private let heard = Mutex<[String]>([])
    private let started = Atomic<Bool>(false)

    /// Watches `site` (its own entries, but hidden ones and those of `excluded`) and every
    /// folder under each of `trees` (hidden ones and those of `excluded` skipped).
    init?(site: URL, excluding excluded: Set<String>, trees: [URL]) throws(FileEventsUnavailable) {
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let sitePath = site.standardizedFileURL.path
        excludedPaths = excluded
        excludedNames = Set(
            excluded.compactMap { path in
                (path as NSString).deletingLastPathComponent == sitePath ? (path as NSString).lastPathComponent : nil
            })
        #if canImport(Glibc)
            descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else {
                throw FileEventsUnavailable("inotify: \(String(cString: strerror(errno)))")
            }
            do {
                try watch(sitePath, isSite: true)
                for tree in trees { try watchTree(tree.standardizedFileURL.path) }
            } catch {
                close(descriptor)
                throw error
            }
        #else
            return nil
        #endif
    }

    deinit {
        // The reading thread holds the watcher while it runs, and closes the descriptor itself.
        #if canImport(Glibc)
            if !started.load(ordering: .relaxed) { close(descriptor) }
        #endif
        continuation.finish()
    }

    #if canImport(Glibc)
        private static let mask: UInt32 =
            UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE)
            | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF)
            | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)

        private func watch(_ path: String, isSite: Bool = false) throws(FileEventsUnavailable) {
            let watch = inotify_add_watch(descriptor, path, Self.mask)
            guard watch >= 0 else {
                // Not a folder (a file at the top of the site: its folder's watch hears it).
                if errno == ENOTDIR || errno == ENOENT { return }
                throw FileEventsUnavailable(
                    errno == ENOSPC
                        ? "inotify: the system watches at most fs.inotify.max_user_watches folders "
                            + "(/proc/sys/fs/inotify/max_user_watches); raise it to watch this site"
                        : "inotify: \(path): \(String(cString: strerror(errno)))")
            }
            folders[watch] = (path, isSite)
        }

        /// `root` and every folder under it, hidden ones aside.
        private func watchTree(_ root: String) throws(FileEventsUnavailable) {
            var pending = [root]
            while let folder = pending.popLast() {
                guard FileStatus(path: folder)?.isDirectory == true, !excludedPaths.contains(folder) else { continue }
                try watch(folder)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                for name in names where !name.hasPrefix(".") {
                    let path = folder + "/" + name
                    // A link to a folder is not followed into (a loop would never end).
                    if FileStatus(path: path)?.isDirectory == true, !FileStatus.isSymbolicLink(path: path) {
                        pending.append(path)
                    }
                }
            }
        }
    #endif

    /// Starts the reading thread; ``stop()`` ends it.
    func start() {
        #if canImport(Glibc)
            guard !started.exchange(true, ordering: .relaxed) else { return }
            let thread = Thread { [self] in readLoop() }
            thread.name = "gallerygen file events"
            thread.start()
        #endif
    }

    /// Ends the reading thread (within its poll's timeout) and the stream.
    func stop() {
        stopped.withLock { $0 = true }
    }

    #if canImport(Glibc)
        private func readLoop() {
            defer {
                close(descriptor)
                continuation.finish()
            }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while !stopped.withLock({ $0 }) {
                var wanted = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // A tenth of a second: how long a stop waits for the thread.
                guard poll(&wanted, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                if handle(buffer[0..<count]) {
                    counter.add(1, ordering: .relaxed)
                    continuation.yield()
                }
            }
        }

        /// Reads one batch; true when a change among the site's inputs is in it.
        private func handle(_ bytes: ArraySlice<UInt8>) -> Bool {
            var relevant = false
            var offset = bytes.startIndex
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= bytes.endIndex {
                let (watch, mask, length) = bytes.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset - bytes.startIndex, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = bytes[(offset + header)..<min(bytes.endIndex, offset + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    relevant = true
                    continue
                }
                guard let folder = folders[watch] else { continue }
                if mask & UInt32(IN_IGNORED) != 0 {
                    folders[watch] = nil
                    continue
                }
                if name.hasPrefix(".") || (folder.isSite && excludedNames.contains(name)) { continue }
                relevant = true
                let path = name.isEmpty ? folder.path : folder.path + "/" + name
                heard.withLock { heard in
                    if heard.last != path { heard.append(path) }
                    if heard.count > 16 { heard.removeFirst(heard.count - 16) }
                }
                if mask & UInt32(IN_ISDIR) != 0, mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
                    // A folder made or moved in: watched, with what it already holds.
                    try? watchTree(folder.path + "/" + name)
                }
            }
            return relevant
        }
    #endif
}

/// Why the system's file notifications cannot be used: the watcher polls instead.
struct FileEventsUnavailable: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
