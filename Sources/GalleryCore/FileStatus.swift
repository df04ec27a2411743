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
        size = Int64(info.st_size)
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        modified = Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
        modifiedNanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        inode = UInt64(info.st_ino)
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `url` itself is a symbolic link (not followed).
    package static func isSymbolicLink(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
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
