import Foundation
import GalleryConcurrency

/// JSON written a record at a time (the published manifest): an array with one element per line,
/// each encoded on its own (sorted keys, slashes as they are), so that a document of 100,000
/// records diffs line by line and is never one JSONEncoder tree in memory.
package enum RecordLines {
    /// The elements `0..<count` of an array, a line each (the brackets are the caller's), handed
    /// to `sink` a part of 4,096 elements at a time; `element` appends the JSON of one, and each
    /// part's are made on every core (in pieces of at least `minimumPart`), as tasks.
    package static func encodeElements(
        count: Int, minimumPart: Int, into sink: ([UInt8]) throws -> Void,
        element: @escaping @Sendable (Int, inout [UInt8]) throws -> Void
    ) async throws {
        let part = 4096
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for start in stride(from: 0, to: count, by: part) {
            let end = min(count, start + part)
            let pieces = max(1, min(cores, (end - start) / max(1, minimumPart)))
            let size = (end - start + pieces - 1) / pieces
            let ranges = stride(from: start, to: end, by: size).map { $0..<min(end, $0 + size) }
            let encoded = await ranges.concurrentMap(ways: ranges.count) { range in
                Result<[UInt8], any Error> {
                    var bytes: [UInt8] = []
                    for offset in range {
                        if offset > 0 { bytes.append(0x2C) }
                        bytes.append(0x0A)
                        try element(offset, &bytes)
                    }
                    return bytes
                }
            }
            for bytes in encoded { try sink(try bytes.get()) }
        }
    }

    /// `strings` as the elements of an array, one per line, and the array's closing bracket,
    /// written as JSONEncoder writes them (200,000 file names through JSONEncoder took a second).
    package static func appendLines(_ strings: [String], to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + strings.count * 40)
        for (offset, string) in strings.enumerated() {
            if offset > 0 { bytes.append(0x2C) }
            bytes.append(0x0A)
            appendJSON(string, to: &bytes)
        }
        bytes += Array("\n]".utf8)
    }

    /// A JSON string literal as JSONEncoder writes it with `.withoutEscapingSlashes`: quotes,
    /// backslashes and control characters escaped, everything else as it is.
    package static func appendJSON(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        // Most strings need no escape at all: copied whole.
        let plain = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(0x22)
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
            case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
            case 0..<0x20: bytes += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
