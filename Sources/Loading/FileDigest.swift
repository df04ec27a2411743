import Crypto
package import Foundation
import GalleryCore

/// Lower-case hex of a SHA-256 digest.
package func hexString<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64)
    for byte in digest {
        bytes.append(digits[Int(byte >> 4)])
        bytes.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// `text` is exactly `length` lower-case hex digits (as ``hexString(_:)`` writes them): how
/// hashes and colours read from elsewhere (a seed's manifest, the remote tier) are checked.
package func isLowercaseHex(_ text: String, length: Int) -> Bool {
    text.utf8.count == length && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
}

/// SHA-256 of a string, in hex: used to name content-addressed files.
package func sha256Hex(of text: String) -> String {
    hexString(SHA256.hash(data: Data(text.utf8)))
}

/// SHA-256 of bytes, in hex.
package func sha256Hex(of data: Data) -> String {
    hexString(SHA256.hash(data: data))
}

/// Streams a file through SHA-256 without holding it in memory.
package enum FileDigest {
    /// Only a plain file is read (opened non-blocking first, so a pipe cannot hang the build).
    package static func sha256(of file: URL) throws -> (hex: String, byteCount: Int64) {
        let handle = FileHandle(fileDescriptor: try PlainFile.open(file), closeOnDealloc: true)
        defer { try? handle.close() }
        var hasher = SHA256()
        var count: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            count += Int64(chunk.count)
        }
        return (hexString(hasher.finalize()), count)
    }
}
