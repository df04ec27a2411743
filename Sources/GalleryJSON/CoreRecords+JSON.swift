package import Foundation
package import GalleryCore

// The core's records read back through their Codable conformance: a published manifest (a seed's,
// 85 MB at 100,000 photos: 2.8 s and a 390 MB peak with JSONDecoder, where the hand-written reader
// it replaced took 1.7 s and 542 MB), the remote cache's thumbnail-set objects and the set records
// of a cache written before the build store. Builds read their own state from the build store.
// Only a manifest's file list is read by hand, its photos skipped unread.

extension Manifest {
    /// Reads a manifest.
    package static func decode(_ data: Data) throws(RecordError) -> Manifest {
        try RecordError.decoding(Manifest.self, from: data)
    }

    /// The file list of a manifest, its photos skipped unread: what a build needs of the previous
    /// build's manifest (which files to remove). Nil when the data is not a manifest.
    package static func fileList(of data: Data) -> [String]? {
        guard let members = try? JSONParser.parseMembers([CodingKeys.files.stringValue], of: [UInt8](data)),
            case .array(let items)? = members[CodingKeys.files.stringValue]
        else { return nil }
        var files: [String] = []
        files.reserveCapacity(items.count)
        for item in items {
            guard case .string(let file) = item else { return nil }
            files.append(file)
        }
        return files
    }
}

extension ProcessedImage {
    /// A thumbnail set's record: the first line of a remote cache's set object, and the
    /// `renditions/<key>.json` of a cache written before the build store.
    package static func decode(_ data: Data) throws(RecordError) -> ProcessedImage {
        try RecordError.decoding(ProcessedImage.self, from: data)
    }

    /// A rendition record with the stamps of its files as the cache wrote them (`stamps`, nil in
    /// a record written before they were kept).
    package static func decodeRecord(_ data: Data) throws(RecordError) -> (image: ProcessedImage, stamps: String?) {
        struct Stamps: Decodable { var stamps: String? }
        return (try decode(data), try RecordError.decoding(Stamps.self, from: data).stamps)
    }
}

/// A record that could not be read, in a line that says where: `photos[3].renditions[0].format:
/// not a valid value`, `not valid JSON: line 1, column 12: …`.
package struct RecordError: Error, Sendable, CustomStringConvertible {
    package var description: String

    static func decoding<Value: Decodable>(_ type: Value.Type, from data: Data) throws(RecordError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            // Not JSON at all: JSONDecoder does not say where on Linux; the feeds' parser does.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                do throws(JSONParser.Failure) {
                    _ = try JSONParser.parse([UInt8](data))
                } catch {
                    throw RecordError(description: "not valid JSON: \(error)")
                }
            }
            throw RecordError(error)
        } catch {
            throw RecordError(description: "\(error)")
        }
    }

    init(description: String) {
        self.description = description
    }

    init(_ error: DecodingError) {
        func place(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): description = "\(place(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context): description = "\(place(context.codingPath)): not a \(type)"
        case .valueNotFound(let type, let context): description = "\(place(context.codingPath)): null, not a \(type)"
        case .dataCorrupted(let context):
            let reason = context.codingPath.isEmpty ? "not valid JSON" : "not a valid value"
            description = "\(place(context.codingPath)): \(reason)"
        @unknown default: description = "\(error)"
        }
    }
}
