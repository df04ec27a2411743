import Crypto
import Foundation

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
    package static func sha256(of file: URL) throws -> (hex: String, byteCount: Int64) {
        let handle = try FileHandle(forReadingFrom: file)
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
