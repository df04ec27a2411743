/// A Mustache template compiled for the values gallerygen's view models hold, rendered without
/// swift-mustache's dynamic lookups.
///
/// swift-mustache renders any Swift value, so every name lookup goes through protocol casts, a
/// split of the name and a copy of the context stack; at 10,000 tiles that was most of the render
/// stage. This renders the same output for the subset of Mustache that themes use (variables,
/// `{{{ }}}` and `{{& }}`, sections, inverted sections, comments, dotted names) over the value
/// types the view models build (strings, integers, booleans, dictionaries and arrays of them).
/// Whitespace follows swift-mustache's parser exactly, including where it differs from the spec
/// (the tests compare both renderers). A template with anything else (partials, inheritance,
/// transforms, set delimiters, pragmas) does not compile, and a value of another type makes
/// ``render(_:)`` return nil: the caller then uses swift-mustache.
struct CompiledTemplate: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case value(Name, escaped: Bool)
        case section(Name, inverted: Bool, [Node])
    }

    /// A variable name: `.` (the current value), `a.b.c`, or `.a` (no lookup up the stack).
    struct Name: Sendable, Equatable {
        var parts: [String]
        var climbs: Bool
    }

    private struct Unsupported: Error {}

    let nodes: [Node]

    /// Nil when the template uses more than this subset (or does not parse).
    init?(_ source: String) {
        var scanner = Scanner(Array(source))
        guard let nodes = try? Self.parse(&scanner, section: nil, newLine: true) else { return nil }
        self.nodes = nodes
    }

    /// The rendered text, or nil when `context` holds a value this renderer does not know.
    func render(_ context: [String: Any]) -> String? {
        var output = ""
        var stack: [Any] = [context]
        guard Self.render(nodes, stack: &stack, into: &output) else { return nil }
        return output
    }

    // MARK: Parsing (a port of swift-mustache 2's parser, for the tags above)

    private struct Scanner {
        let characters: [Character]
        var position = 0

        init(_ characters: [Character]) { self.characters = characters }

        var atEnd: Bool { position >= characters.count }
        var current: Character? { atEnd ? nil : characters[position] }

        mutating func read(while predicate: (Character) -> Bool) -> String {
            let start = position
            while let character = current, predicate(character) { position += 1 }
            return String(characters[start..<position])
        }

        mutating func read(_ text: String) -> Bool {
            let expected = Array(text)
            guard position + expected.count <= characters.count,
                characters[position..<(position + expected.count)].elementsEqual(expected)
            else { return false }
            position += expected.count
            return true
        }

        /// Text up to a newline (not consumed) or `{{` (consumed).
        mutating func readUntilTagOrNewline() -> String {
            var text = ""
            while let character = current {
                if character == "\n" || character == "\r\n" { break }
                if character == "{" {
                    if read("{{") { break }
                    text.append(character)
                    position += 1
                    continue
                }
                text.append(character)
                position += 1
            }
            return text
        }

        /// True at the end, or when only spaces and tabs are left on the line (then consumed
        /// with its newline).
        mutating func lineHasFinished() -> Bool {
            if atEnd { return true }
            var ahead = self
            _ = ahead.read { $0 == " " || $0 == "\t" }
            guard let character = ahead.current, character.isNewline else { return false }
            position = ahead.position + 1
            return true
        }
    }

    private static let nameCharacters = Set<Character>(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*")

    private static func parseName(_ scanner: inout Scanner) throws(Unsupported) -> Name {
        _ = scanner.read(while: \.isWhitespace)
        let text = scanner.read { nameCharacters.contains($0) }
        _ = scanner.read(while: \.isWhitespace)
        guard scanner.read("}}") else { throw Unsupported() }
        if text == "." { return Name(parts: [], climbs: false) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
        guard !parts.isEmpty else { throw Unsupported() }
        return Name(parts: parts, climbs: !text.hasPrefix("."))
    }

    private static func parse(_ scanner: inout Scanner, section: Name?, newLine startsOnNewLine: Bool)
        throws(Unsupported) -> [Node]
    {
        var nodes: [Node] = []
        var newLine = startsOnNewLine
        var whiteSpaceBefore = ""
        while !scanner.atEnd {
            if newLine { whiteSpaceBefore = scanner.read { $0 == " " || $0 == "\t" } }
            let text = scanner.readUntilTagOrNewline()
            if let character = scanner.current, character.isNewline {
                nodes.append(.text(whiteSpaceBefore + text + String(character)))
                newLine = true
                scanner.position += 1
                continue
            }
            if !text.isEmpty {
                nodes.append(.text(whiteSpaceBefore + text))
                whiteSpaceBefore = ""
                newLine = false
            }
            guard let tag = scanner.current else { break }
            var setNewLine = false
            func flushWhiteSpace() {
                if !whiteSpaceBefore.isEmpty {
                    nodes.append(.text(whiteSpaceBefore))
                    whiteSpaceBefore = ""
                }
            }
            switch tag {
            case "#", "^":
                scanner.position += 1
                let name = try parseName(&scanner)
                if newLine, scanner.lineHasFinished() { setNewLine = true } else { flushWhiteSpace() }
                let body = try parse(&scanner, section: name, newLine: setNewLine)
                nodes.append(.section(name, inverted: tag == "^", body))
            case "/":
                scanner.position += 1
                guard try parseName(&scanner) == section else { throw Unsupported() }
                if !(newLine && scanner.lineHasFinished()) { flushWhiteSpace() }
                return nodes
            case "!":
                scanner.position += 1
                while !scanner.read("}}") {
                    guard !scanner.atEnd else { throw Unsupported() }
                    scanner.position += 1
                }
                setNewLine = newLine && scanner.lineHasFinished()
            case "{":
                flushWhiteSpace()
                scanner.position += 1
                let name = try parseName(&scanner)
                guard scanner.read("}") else { throw Unsupported() }
                nodes.append(.value(name, escaped: false))
            case "&":
                flushWhiteSpace()
                scanner.position += 1
                nodes.append(.value(try parseName(&scanner), escaped: false))
            case ">", "<", "$", "=", "%":
                throw Unsupported()
            default:
                flushWhiteSpace()
                nodes.append(.value(try parseName(&scanner), escaped: true))
            }
            newLine = setNewLine
        }
        guard section == nil else { throw Unsupported() }
        return nodes
    }

    // MARK: Rendering

    /// What a value is to the renderer; nil for a type it leaves to swift-mustache.
    private enum Value {
        case text(String)
        case flag(Bool)
        case list([Any])
        case other(Any)
    }

    private static func classify(_ value: Any) -> Value? {
        switch value {
        case let text as String: .text(text)
        case let flag as Bool: .flag(flag)
        case let number as Int: .text(String(number))
        case let number as Double: .text(String(describing: number))
        case let list as [Any]: .list(list)
        case is [String: Any]: .other(value)
        default: nil
        }
    }

    private static func lookup(_ name: Name, in stack: [Any]) -> Any? {
        guard let first = name.parts.first else { return stack.last }
        var found: Any?
        if name.climbs {
            for object in stack.reversed() {
                if let dictionary = object as? [String: Any], let value = dictionary[first] {
                    found = value
                    break
                }
            }
        } else {
            found = (stack.last as? [String: Any])?[first]
        }
        for part in name.parts.dropFirst() {
            guard let dictionary = found as? [String: Any] else { return nil }
            found = dictionary[part]
        }
        return found
    }

    /// False when a value is of a type this renderer does not know.
    private static func render(_ nodes: [Node], stack: inout [Any], into output: inout String) -> Bool {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .value(let name, let escaped):
                guard let found = lookup(name, in: stack) else { continue }
                guard let value = classify(found) else { return false }
                let text: String
                switch value {
                case .text(let string): text = string
                case .flag(let flag): text = flag ? "true" : "false"
                case .list, .other: text = String(describing: found)
                }
                if escaped { appendEscaped(text, to: &output) } else { output += text }
            case .section(let name, let inverted, let body):
                var value: Value?
                var object: Any = ()
                if let found = lookup(name, in: stack) {
                    guard let known = classify(found) else { return false }
                    value = known
                    object = found
                }
                switch (value, inverted) {
                case (nil, false), (.flag(false), false), (.flag(true), true), (.text, true), (.other, true):
                    continue
                case (.flag(true), false), (nil, true), (.flag(false), true):
                    guard render(body, stack: &stack, into: &output) else { return false }
                case (.list(let items), false):
                    for item in items {
                        stack.append(item)
                        defer { stack.removeLast() }
                        guard render(body, stack: &stack, into: &output) else { return false }
                    }
                case (.list(let items), true):
                    guard items.isEmpty else { continue }
                    stack.append(items)
                    defer { stack.removeLast() }
                    guard render(body, stack: &stack, into: &output) else { return false }
                case (.text, false), (.other, false):
                    stack.append(object)
                    defer { stack.removeLast() }
                    guard render(body, stack: &stack, into: &output) else { return false }
                }
            }
        }
        return true
    }

    /// HTML-escapes `&`, `<`, `>`, `"` and `'` as swift-mustache does, but by byte rather than by
    /// Character, so a mark joined to a quote cannot hide it.
    private static func appendEscaped(_ text: String, to output: inout String) {
        guard text.utf8.contains(where: \.isHTMLSpecial) else {
            output += text
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: bytes += Array("&amp;".utf8)
            case 0x3C: bytes += Array("&lt;".utf8)
            case 0x3E: bytes += Array("&gt;".utf8)
            case 0x22: bytes += Array("&quot;".utf8)
            case 0x27: bytes += Array("&#39;".utf8)
            default: bytes.append(byte)
            }
        }
        output += String(decoding: bytes, as: UTF8.self)
    }
}
