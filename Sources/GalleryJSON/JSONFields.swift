package import Foundation

/// The members of a JSON object, read by name with the expected type: how gallerygen reads the
/// JSON it writes itself (a published manifest, a remote cache's thumbnail-set objects, and the
/// records of a cache written before the build store, taken over once).
///
/// `JSONDecoder` spends most of a 10,000-photo rebuild's start in Codable's generic machinery;
/// parsing with ``JSONParser`` and reading fields by hand is several times faster. The files are
/// still written with `JSONEncoder` (from the types' `Codable` conformance), and tests check that
/// each type reads back what it wrote.
package struct JSONFields {
    /// A value of the wrong type, or a missing one, at a path like `photos[3].renditions[0].width`.
    package struct Mismatch: Error, CustomStringConvertible {
        package var path: String
        package var expected: String
        package var description: String { "\(path.isEmpty ? "the top level" : path): expected \(expected)" }
    }

    private let members: [String: JSONValue]
    private let path: String

    package init(_ value: JSONValue, path: String = "") throws(Mismatch) {
        guard case .object(let members) = value else { throw Mismatch(path: path, expected: "an object") }
        self.members = members
        self.path = path
    }

    /// Parses `data` and reads its top-level object.
    package static func parse(_ data: Data) throws -> JSONFields {
        try JSONFields(JSONParser.parse([UInt8](data)))
    }

    private func member(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func required<T>(_ key: String, _ expected: String, _ read: (JSONValue) -> T?) throws(Mismatch) -> T {
        guard let value = member(key), let result = read(value) else {
            throw Mismatch(path: child(key), expected: expected)
        }
        return result
    }

    private func optional<T>(_ key: String, _ expected: String, _ read: (JSONValue) -> T?) throws(Mismatch) -> T? {
        guard let value = member(key) else { return nil }
        guard let result = read(value) else { throw Mismatch(path: child(key), expected: expected) }
        return result
    }

    package func string(_ key: String) throws(Mismatch) -> String {
        try required(key, "a string", Self.string)
    }

    package func optionalString(_ key: String) throws(Mismatch) -> String? {
        try optional(key, "a string", Self.string)
    }

    /// A string naming one case of `T` (`"webp"` for `ImageFormat.webp`).
    package func value<T: RawRepresentable>(_ key: String, expected: String) throws(Mismatch) -> T
    where T.RawValue == String {
        try required(key, expected) { Self.string($0).flatMap(T.init(rawValue:)) }
    }

    package func int(_ key: String) throws(Mismatch) -> Int {
        try required(key, "an integer") { Self.number($0).flatMap { Int(exactly: $0) } }
    }

    package func optionalInt(_ key: String) throws(Mismatch) -> Int? {
        try optional(key, "an integer") { Self.number($0).flatMap { Int(exactly: $0) } }
    }

    package func int64(_ key: String) throws(Mismatch) -> Int64 {
        try required(key, "an integer") { Self.number($0).flatMap { Int64(exactly: $0) } }
    }

    package func bool(_ key: String) throws(Mismatch) -> Bool {
        try required(key, "true or false") { value in
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }

    package func optionalBool(_ key: String) throws(Mismatch) -> Bool? {
        try optional(key, "true or false") { value in
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }

    package func double(_ key: String) throws(Mismatch) -> Double {
        try required(key, "a number", Self.number)
    }

    package func object(_ key: String) throws(Mismatch) -> JSONFields {
        guard let value = member(key) else { throw Mismatch(path: child(key), expected: "an object") }
        return try JSONFields(value, path: child(key))
    }

    package func optionalObject(_ key: String) throws(Mismatch) -> JSONFields? {
        guard let value = member(key) else { return nil }
        return try JSONFields(value, path: child(key))
    }

    /// The elements of an array of objects, each read by `read`; a missing array is empty only
    /// when `required` is false.
    package func objects<T>(_ key: String, required: Bool = true, _ read: (JSONFields) throws(Mismatch) -> T)
        throws(Mismatch) -> [T]
    {
        try elements(key, required: required) { item, path throws(Mismatch) in
            try read(try JSONFields(item, path: path))
        }
    }

    package func strings(_ key: String, required: Bool = true) throws(Mismatch) -> [String] {
        try elements(key, required: required) { item, path throws(Mismatch) in
            guard let text = Self.string(item) else { throw Mismatch(path: path, expected: "a string") }
            return text
        }
    }

    private func elements<T>(
        _ key: String, required: Bool, _ read: (JSONValue, _ path: String) throws(Mismatch) -> T
    ) throws(Mismatch) -> [T] {
        guard let value = member(key) else {
            if required { throw Mismatch(path: child(key), expected: "an array") }
            return []
        }
        guard case .array(let items) = value else { throw Mismatch(path: child(key), expected: "an array") }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { result.append(try read(item, "\(child(key))[\(index)]")) }
        return result
    }

    private static func string(_ value: JSONValue) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    private static func number(_ value: JSONValue) -> Double? {
        if case .number(let number, _) = value { return number }
        return nil
    }
}
