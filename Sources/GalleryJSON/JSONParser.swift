/// A strict JSON parser (RFC 8259) whose errors give the line and column of the bad byte.
/// Foundation's only gives a character offset, and a feed is the input users most often get wrong.
package struct JSONParser {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var message: String

        /// `line L, column C: message`, for a sentence that names the document.
        package var description: String { "line \(line), column \(column): \(message)" }
    }

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    private static let maximumDepth = 512

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        // A byte-order mark is not JSON, but editors write one; skip it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    /// The members `keys` of a top-level object; the others are checked as JSON and skipped
    /// without being built (a 100,000-photo manifest read for its file list alone would
    /// otherwise be a tree of a million values).
    package static func parseMembers(_ keys: Set<String>, of bytes: [UInt8]) throws(Failure) -> [String: JSONValue] {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        guard parser.current == UInt8(ascii: "{") else { throw parser.failure("expected an object") }
        parser.position += 1
        var members: [String: JSONValue] = [:]
        parser.skipWhitespace()
        if parser.current == UInt8(ascii: "}") {
            parser.position += 1
        } else {
            while true {
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: "\"") else { throw parser.failure("expected a string key") }
                let key = try parser.parseString()
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: ":") else { throw parser.failure("expected ':' after \"\(key)\"") }
                parser.position += 1
                parser.skipWhitespace()
                if keys.contains(key) {
                    members[key] = try parser.parseValue()
                } else {
                    try parser.skipValue()
                }
                parser.skipWhitespace()
                if parser.current == UInt8(ascii: ",") {
                    parser.position += 1
                    continue
                }
                guard parser.current == UInt8(ascii: "}") else { throw parser.failure("expected ',' or '}'") }
                parser.position += 1
                break
            }
        }
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return members
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Moves past one value, checking its structure, building nothing.
    private mutating func skipValue() throws(Failure) {
        guard let byte = current else { throw failure("unexpected end of the file, expected a value") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            try enterContainer()
            defer { depth -= 1 }
            position += 1
            skipWhitespace()
            if current == closing {
                position += 1
                return
            }
            while true {
                skipWhitespace()
                if closing == UInt8(ascii: "}") {
                    guard current == UInt8(ascii: "\"") else { throw failure("expected a string key in an object") }
                    try skipString()
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
                    position += 1
                    skipWhitespace()
                }
                try skipValue()
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                } else if current == closing {
                    position += 1
                    return
                } else {
                    throw failure("expected ',' or a closing bracket")
                }
            }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue()
        }
    }

    /// Moves past a string (escapes included) without decoding it.
    private mutating func skipString() throws(Failure) {
        position += 1
        while let byte = current {
            position += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") {
                guard current != nil else { break }
                position += 1
            } else if byte < 0x20 {
                throw failure("a control character in a string", at: position - 1)
            }
        }
        throw failure("unexpected end of the file inside a string")
    }

    private func failure(_ message: String, at offset: Int? = nil) -> Failure {
        let end = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        let column = bytes[lineStart..<end].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return Failure(line: line, column: column, message: message)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of the file, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character \(describe(byte)), expected a value")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        let start = position
        for expected in word.utf8 {
            guard current == expected else { throw failure("invalid literal, expected '\(word)'", at: start) }
            position += 1
        }
        return value
    }

    private mutating func enterContainer() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key in an object") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after the key \"\(key)\"") }
            position += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            case nil: throw failure("unexpected end of the file inside an object")
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(items)
            case nil: throw failure("unexpected end of the file inside an array")
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw failure("invalid number")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw failure("invalid number: expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw failure("invalid number: expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text) else { throw failure("invalid number", at: start) }
        return .number(value, text: text)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    private mutating func parseString() throws(Failure) -> String {
        let start = position
        position += 1
        // Most strings have no escape: one decode of their bytes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: bytes[(start + 1)..<(position - 1)], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        position = start + 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ parser: JSONParser, upTo end: Int) {
            scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw failure("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                flushRun(self, upTo: position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(self, upTo: position)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
            case 0..<0x20:
                throw failure("control character in a string (escape it as \\u00\(String(byte, radix: 16)))")
            default:
                position += 1
            }
        }
    }

    private mutating func parseEscape() throws(Failure) -> Unicode.Scalar {
        guard let byte = current else { throw failure("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "u")
                else { return "\u{FFFD}" }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { return "\u{FFFD}" }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(high) ?? "\u{FFFD}"
        default:
            throw failure("invalid escape '\\\(Character(Unicode.Scalar(byte)))'", at: position - 2)
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = hexValue(byte) else { throw failure("invalid \\u escape") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
