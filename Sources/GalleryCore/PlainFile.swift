package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the files a user puts in a site (gallery.yml, the feed, index.md, photos) without ever
/// blocking on one that is not a file: it is opened non-blocking and checked to be a plain file
/// before anything is read, so a pipe named `feed.json` is an error, not a build that hangs in
/// `open(2)` past every signal.
package enum PlainFile {
    /// Why a file could not be read, in words for a message that names it.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package enum Kind: Sendable, Equatable {
            case missing
            case notPlain
            case tooLarge(limit: Int64)
            case unreadable
        }

        package var kind: Kind
        package var description: String
    }

    /// Opens `url` for reading: a file descriptor of a plain file, or a failure.
    package static func open(_ url: URL) throws(Failure) -> Int32 {
        try openWithSize(url).descriptor
    }

    /// ``open(_:)``, and the file's size as the same `fstat(2)` found it.
    private static func openWithSize(_ url: URL) throws(Failure) -> (descriptor: Int32, size: Int64) {
        let descriptor = openNonBlocking(url.path)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw Failure(kind: .missing, description: "does not exist")
            }
            throw Failure(kind: .unreadable, description: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw Failure(kind: .notPlain, description: "is not a plain file (a folder, pipe, socket or device)")
        }
        // Back to blocking reads: on a plain file the flag changes nothing, and FileHandle's reads
        // expect a blocking descriptor.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return (descriptor, Int64(info.st_size))
    }

    /// The first `count` bytes of the plain file `url` (fewer when it is shorter): what its kind is
    /// told by (``MediaKind/videoContainer(of:)``); nil when it cannot be read.
    package static func head(of url: URL, count: Int = 16) -> Data? {
        guard let (descriptor, _) = try? openWithSize(url) else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return try? handle.read(upToCount: count) ?? Data()
    }

    /// The whole of the plain file `url`, at most `limit` bytes.
    package static func read(_ url: URL, limit: Int64 = .max) throws(Failure) -> Data {
        let (descriptor, size) = try openWithSize(url)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        if size > limit {
            throw Failure(
                kind: .tooLarge(limit: limit), description: "is \(size) bytes, more than the \(limit) allowed")
        }
        do {
            // Read to the end, not to the size stat gave: a file that grows is read at most a
            // chunk past the limit.
            var data = Data()
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                guard Int64(data.count) <= limit else {
                    throw Failure(
                        kind: .tooLarge(limit: limit), description: "is more than the \(limit) bytes allowed")
                }
            }
            return data
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(kind: .unreadable, description: (error as NSError).localizedDescription)
        }
    }

    private static func openNonBlocking(_ path: String) -> Int32 {
        #if canImport(Darwin)
            Darwin.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #else
            Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #endif
    }
}
