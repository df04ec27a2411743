public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Damages a file the way a bad disk or a careless hand would, and hides it: one byte flipped,
/// and the modification time put back to the nanosecond, so that nothing but the bytes tells.
public enum FileTampering {
    public static func flipByte(in file: URL, at offset: Int? = nil) throws {
        var before = stat()
        guard stat(file.path, &before) == 0 else { throw TestImageError(message: "cannot stat \(file.path)") }
        var bytes = try [UInt8](Data(contentsOf: file))
        bytes[offset ?? bytes.count / 2] ^= 0x55
        try Data(bytes).write(to: file)
        #if canImport(Glibc)
            var times = [before.st_atim, before.st_mtim]
        #else
            var times = [before.st_atimespec, before.st_mtimespec]
        #endif
        guard utimensat(AT_FDCWD, file.path, &times, 0) == 0 else {
            throw TestImageError(message: "cannot restore the times of \(file.path)")
        }
    }
}
