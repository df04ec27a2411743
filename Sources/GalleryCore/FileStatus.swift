package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Size and modification time of a file, from one `stat(2)`.
///
/// `FileManager.attributesOfItem` builds a dictionary of every attribute (owner names
/// included) per call; a rebuild of 10,000 photos asks tens of thousands of times.
package struct FileStatus: Sendable, Equatable {
    package var size: Int64
    /// Seconds since 1970, as `FileManager` reports `.modificationDate`.
    package var modified: Double
    /// The modification time exactly, in nanoseconds since 1970.
    package var modifiedNanoseconds: Int64
    /// The time the file's inode last changed (its bytes, its times, its links), in nanoseconds
    /// since 1970: no tool can set it back, so a file written with its times restored still
    /// shows a new one.
    package var changedNanoseconds: Int64
    /// The file's inode number: a file replaced by a rename has a new one.
    package var inode: UInt64
    /// A plain file: not a folder, device, socket or pipe.
    package var isRegularFile: Bool
    /// A folder.
    package var isDirectory: Bool

    /// The status of the file at `path` (symbolic links followed), or nil when there is none.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The status of the file at `path` (a symbolic link followed to what it names), and whether
    /// `path` itself is a link: one lstat(2) for all but a link. Nil when there is none (or the
    /// link leads nowhere).
    package static func entry(path: String) -> (status: FileStatus, isSymbolicLink: Bool)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFLNK else { return (FileStatus(info), false) }
        return FileStatus(path: path).map { ($0, true) }
    }

    private init(_ info: stat) {
        size = Int64(info.st_size)
        #if canImport(Darwin)
            let (time, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
            let (time, changed) = (info.st_mtim, info.st_ctim)
        #endif
        modified = Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
        modifiedNanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        changedNanoseconds = Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec)
        inode = UInt64(info.st_ino)
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `url` itself is a symbolic link (not followed).
    package static func isSymbolicLink(_ url: URL) -> Bool {
        isSymbolicLink(path: url.path)
    }

    /// Whether the file at `path` itself is a symbolic link (not followed).
    package static func isSymbolicLink(path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    package init?(_ url: URL) {
        self.init(path: url.path)
    }
}

/// A file's size, modification time (to the nanosecond) and inode, as stat(2) gave them: a file
/// whose stamp is as recorded was not written since. What every record of a file the build left
/// (a page, a thumbnail, the manifest, a published file) is checked by.
package struct FileStamp: Sendable, Hashable {
    package var size: Int64
    package var modified: Int64
    package var inode: UInt64

    package init(size: Int64, modified: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    package init(_ status: FileStatus) {
        self.init(size: status.size, modified: status.modifiedNanoseconds, inode: status.inode)
    }

    /// The stamp of the file at `path` now; nil when there is none.
    package init?(path: String) {
        guard let status = FileStatus(path: path) else { return nil }
        self.init(status)
    }
}

/// What a build trusts about a file it read from the site (a photo, a sidecar, a folder of a
/// folder feed) without reading it again: its size, modification and change times (to the
/// nanosecond) and inode, as stat(2) gave them. A file written in place changes its change
/// time, even when the tool that wrote it restored its modification time; a file replaced by
/// another (a rename, a copy) has another inode or change time; a folder whose entries changed
/// (a file added, removed or renamed) has a new modification time. docs/guarantees.md says what
/// this trusts, and when the bytes are read again.
package struct SourceStamp: Sendable, Hashable {
    package var size: Int64
    package var modified: Int64
    package var changed: Int64
    package var inode: UInt64

    package init(size: Int64, modified: Int64, changed: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.changed = changed
        self.inode = inode
    }

    package init(_ status: FileStatus) {
        self.init(
            size: status.size, modified: status.modifiedNanoseconds, changed: status.changedNanoseconds,
            inode: status.inode)
    }

    /// The stamp of the file at `path` now (links followed); nil when there is none.
    package init?(path: String) {
        guard let status = FileStatus(path: path) else { return nil }
        self.init(status)
    }

    /// How close to the moment a stamp was taken a file's times may be for the stamp to be
    /// trusted: a file system keeps times in coarse ticks (a few milliseconds on Linux, 2 s on
    /// FAT), so a file written again within the tick it was stamped in keeps its stamp. A stamp
    /// taken that soon after a write vouches for nothing, and the file is read again next time.
    package static let settleNanoseconds: Int64 = 2_000_000_000

    /// Whether the stamp, taken at `now`, may be trusted (``settleNanoseconds``).
    package func isSettled(at now: Date) -> Bool {
        let limit = Int64(now.timeIntervalSince1970 * 1e9) - Self.settleNanoseconds
        return modified <= limit && changed <= limit
    }
}

/// A file the build read from the site, with its stamp as it was before the read.
package struct SourceInput: Sendable, Hashable {
    package var path: String
    package var stamp: SourceStamp

    package init(path: String, stamp: SourceStamp) {
        self.path = path
        self.stamp = stamp
    }
}
