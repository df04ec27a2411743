/// A small XML reader for XMP packets: elements, attributes and text, entities and CDATA;
/// comments and processing instructions skipped. It reads a packet into a tree, bounded in size
/// and depth, and refuses what an XMP packet never needs and an attacker would use: a DOCTYPE
/// (entity expansion, external entities). Namespaces are resolved by ``XMPPacket``.
struct XMLTree {
    struct Element {
        /// The qualified name as written: `dc:title`.
        var name: String
        var attributes: [(name: String, value: String)]
        var children: [Node]

        /// The text directly and deeply inside, in order.
        var text: String {
            children.map { node in
                switch node {
                case .text(let text): text
                case .element(let element): element.text
                }
            }.joined()
        }

        var elements: [Element] {
            children.compactMap { node in
                if case .element(let element) = node { return element }
                return nil
            }
        }
    }

    enum Node {
        case element(Element)
        case text(String)
    }

    struct Failure: Error, Equatable, CustomStringConvertible {
        var message: String
        /// Bytes from the start of the packet.
        var offset: Int
        var description: String { "\(message) at byte \(offset)" }
    }

    static let depthLimit = 64
    static let elementLimit = 50_000
    /// Namespace declarations in a packet: a real one has a dozen; thousands, each copied into
    /// every element's scope, would cost seconds.
    static let namespaceLimit = 256

    let root: Element

    /// Reads `bytes` (UTF-8) to their root element.
    init(bytes: [UInt8]) throws(Failure) {
        var reader = Reader(bytes: bytes)
        root = try reader.document()
    }
}

private struct Reader {
    let bytes: [UInt8]
    var position = 0
    var elementCount = 0
    var namespaceCount = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func fail(_ message: String) -> XMLTree.Failure {
        XMLTree.Failure(message: message, offset: position)
    }

    var atEnd: Bool { position >= bytes.count }

    func peek(_ text: String) -> Bool {
        let pattern = Array(text.utf8)
        guard position + pattern.count <= bytes.count else { return false }
        return bytes[position..<position + pattern.count].elementsEqual(pattern)
    }

    /// Moves past `terminator`; fails when the text ends first.
    mutating func skip(past terminator: String, what: String) throws(XMLTree.Failure) {
        while !atEnd {
            if peek(terminator) {
                position += terminator.utf8.count
                return
            }
            position += 1
        }
        throw fail("unterminated \(what)")
    }

    mutating func skipSpace() {
        while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// Skips what may precede or follow the root: the XML declaration, comments, processing
    /// instructions (XMP's `<?xpacket ...?>`) and space.
    mutating func skipMisc() throws(XMLTree.Failure) {
        while true {
            skipSpace()
            if peek("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if peek("<!--") {
                try skip(past: "-->", what: "comment")
            } else if peek("<!") {
                throw fail("a DOCTYPE or declaration, which an XMP packet never has")
            } else {
                return
            }
        }
    }

    mutating func document() throws(XMLTree.Failure) -> XMLTree.Element {
        // A byte-order mark.
        if peek("\u{FEFF}") { position += 3 }
        try skipMisc()
        guard peek("<") else { throw fail("no root element") }
        let root = try element(depth: 0)
        // Whatever follows the root (the packet's padding and end mark) is not read.
        return root
    }

    mutating func name() throws(XMLTree.Failure) -> String {
        let start = position
        while !atEnd {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "<")
            {
                break
            }
            position += 1
        }
        guard position > start, position - start <= 200 else { throw fail("a bad name") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func element(depth: Int) throws(XMLTree.Failure) -> XMLTree.Element {
        guard depth < XMLTree.depthLimit else { throw fail("elements nested deeper than \(XMLTree.depthLimit)") }
        elementCount += 1
        guard elementCount <= XMLTree.elementLimit else { throw fail("more than \(XMLTree.elementLimit) elements") }
        position += 1  // <
        let name = try name()
        var element = XMLTree.Element(name: name, attributes: [], children: [])
        while true {
            skipSpace()
            guard !atEnd else { throw fail("unterminated tag <\(name)>") }
            if peek("/>") {
                position += 2
                return element
            }
            if peek(">") {
                position += 1
                break
            }
            let attribute = try self.name()
            if attribute.hasPrefix("xmlns") {
                namespaceCount += 1
                guard namespaceCount <= XMLTree.namespaceLimit else {
                    throw fail("more than \(XMLTree.namespaceLimit) namespace declarations")
                }
            }
            skipSpace()
            guard peek("=") else { throw fail("attribute \(attribute) without a value") }
            position += 1
            skipSpace()
            guard !atEnd, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw fail("attribute \(attribute)'s value is not quoted")
            }
            let quote = bytes[position]
            position += 1
            let start = position
            while !atEnd, bytes[position] != quote {
                guard bytes[position] != UInt8(ascii: "<") else { throw fail("a < inside attribute \(attribute)") }
                position += 1
            }
            guard !atEnd else { throw fail("unterminated attribute \(attribute)") }
            let value = try decoded(bytes[start..<position])
            position += 1
            element.attributes.append((attribute, value))
        }
        var text: [UInt8] = []
        func flush(_ element: inout XMLTree.Element, _ text: inout [UInt8]) throws(XMLTree.Failure) {
            guard !text.isEmpty else { return }
            element.children.append(.text(try decoded(text[...])))
            text.removeAll(keepingCapacity: true)
        }
        while true {
            guard !atEnd else { throw fail("element <\(name)> is not closed") }
            if peek("</") {
                try flush(&element, &text)
                position += 2
                let closing = try self.name()
                guard closing == name else { throw fail("</\(closing)> closes <\(name)>") }
                skipSpace()
                guard peek(">") else { throw fail("unterminated end tag </\(name)>") }
                position += 1
                return element
            } else if peek("<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>", what: "CDATA section")
                // CDATA is literal: marked so that its & is not read as an entity.
                try flush(&element, &text)
                element.children.append(.text(String(decoding: bytes[start..<(position - 3)], as: UTF8.self)))
            } else if peek("<!--") {
                try skip(past: "-->", what: "comment")
            } else if peek("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if peek("<!") {
                throw fail("a declaration inside an element")
            } else if peek("<") {
                try flush(&element, &text)
                element.children.append(.element(try self.element(depth: depth + 1)))
            } else {
                text.append(bytes[position])
                position += 1
            }
        }
    }

    /// Text with its entities replaced: the five XML names and numeric references.
    func decoded(_ slice: ArraySlice<UInt8>) throws(XMLTree.Failure) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            guard let semicolon = slice[index..<min(slice.endIndex, index + 12)].firstIndex(of: UInt8(ascii: ";"))
            else { throw fail("a bare & (write &amp;)") }
            let name = String(decoding: slice[(index + 1)..<semicolon], as: UTF8.self)
            let scalar: Unicode.Scalar?
            switch name {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
                } else {
                    scalar = nil
                }
            }
            guard let scalar else { throw fail("an unknown entity &\(name.prefix(20));") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            index = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
