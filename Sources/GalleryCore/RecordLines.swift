import Foundation

/// JSON written a record at a time: an array with one element per line, each encoded on its own
/// (sorted keys, slashes as they are), so that a document of 100,000 records diffs line by line
/// and is never one JSONEncoder tree in memory.
package struct RecordLines {
    private let encoder: JSONEncoder
    package private(set) var data: Data

    /// Starts the document with `opening` (`{"records":[`).
    package init(opening: String) {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        data = Data(opening.utf8)
    }

    /// The elements of one array, one per line; the array's closing bracket follows on its own.
    package mutating func append<Element: Encodable>(_ elements: [Element]) throws {
        for (offset, element) in elements.enumerated() {
            data.append(contentsOf: Array((offset == 0 ? "\n" : ",\n").utf8))
            data.append(try encoder.encode(element))
        }
        data.append(contentsOf: Array("\n]".utf8))
    }

    /// Text between the arrays or at the end, as it is.
    package mutating func append(_ text: String) {
        data.append(contentsOf: Array(text.utf8))
    }
}
