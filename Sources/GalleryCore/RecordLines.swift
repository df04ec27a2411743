import Foundation

/// JSON written a record at a time: an array with one element per line, each encoded on its own
/// (sorted keys, slashes as they are), so that a document of 100,000 records diffs line by line
/// and is never one JSONEncoder tree in memory.
package struct RecordLines {
    package private(set) var data: Data

    /// Starts the document with `opening` (`{"records":[`).
    package init(opening: String) {
        data = Data(opening.utf8)
    }

    /// The elements of one array, one per line; the array's closing bracket follows on its own.
    /// A long array is encoded in parts on every core (JSONEncoder takes about 20 µs a record).
    package mutating func append<Element: Encodable & Sendable>(_ elements: [Element]) throws {
        let encoded = concurrentParts(of: elements.count, minimumPart: 2048) { range in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Result<Data, any Error> {
                var data = Data()
                for offset in range {
                    data.append(contentsOf: Array((offset == 0 ? "\n" : ",\n").utf8))
                    data.append(try encoder.encode(elements[offset]))
                }
                return data
            }
        }
        for part in encoded { data.append(try part.get()) }
        data.append(contentsOf: Array("\n]".utf8))
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

    /// Text between the arrays or at the end, as it is.
    package mutating func append(_ text: String) {
        data.append(contentsOf: Array(text.utf8))
    }
}
