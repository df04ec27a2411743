import Foundation
import GalleryCore
import GalleryJSON

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An RSS 2.0 or Atom feed, with Media RSS (`media:content`, `media:group`, `media:thumbnail`,
/// `media:description`, `media:credit`, `media:keywords`, `media:category`, `media:copyright`,
/// `media:license`) and enclosures: Flickr's public feeds, Mastodon and Pixelfed accounts
/// (`.rss`, `.atom`), WordPress, SmugMug and blogs. docs/feeds.md says what each field fills.
///
/// Read by libxml2 (Foundation's XMLParser) with external entities off; a feed with a document
/// type declaration (`<!DOCTYPE`, `<!ENTITY`) is refused before parsing, so no entity is ever
/// expanded (no XXE, no billion laughs). Each item becomes an entry of the list shape
/// (`imageUrl`, `title`, `link`, `id`, `date`, `description`, `alt`, `keywords`, `creator`,
/// `rights`, `licence`), resolved as every other feed's entries are.
struct MediaFeed {
    var title: String?
    var entries: [JSONValue]
    /// The next page's address, from `<atom:link rel="next">` (RFC 5005), as written.
    var next: String?

    /// Elements nested deeper than this make the feed an error, not a deep recursion.
    static let depthLimit = 64

    /// True when `data` starts, after a byte order mark and white space, with `<`.
    static func looksLikeXML(_ data: Data) -> Bool {
        var bytes = data.prefix(512)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    init(data: Data, name: String) throws(FeedError) {
        try self.init(root: Self.root(of: data, name: name), name: name)
    }

    /// The document's root element, read with no entity expanded (see the type's comment).
    static func root(of data: Data, name: String) throws(FeedError) -> Element {
        // UTF-16 and UTF-32 would hide a declaration from the byte scan below: only encodings
        // that write `<!DOCTYPE` in ASCII are read (UTF-8, and the ISO 8859 family).
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) || data.prefix(4).contains(0) {
            throw FeedError(
                .invalidXML, "\(name): the feed is in UTF-16 or UTF-32; gallerygen reads XML feeds in UTF-8")
        }
        // Nor any other that does not (EBCDIC, UTF-7): the document must start with `<` as ASCII
        // writes it, and declare an encoding that keeps ASCII's bytes, or none.
        guard looksLikeXML(data) else {
            throw FeedError(
                .invalidXML,
                "\(name): the feed does not start with `<` as UTF-8 writes it (EBCDIC?); gallerygen reads XML "
                    + "feeds in UTF-8")
        }
        if let encoding = declaredEncoding(in: data), encoding.isEmpty || !Self.readsAsASCII(encoding) {
            throw FeedError(
                .invalidXML,
                "\(name): the feed declares "
                    + (encoding.isEmpty
                        ? "an encoding its XML declaration does not let be read whole"
                        : "the encoding \"\(encoding.prefix(40))\"")
                    + "; gallerygen reads XML feeds in UTF-8 (or an encoding that writes ASCII as ASCII, such as "
                    + "ISO-8859-1)")
        }
        if let place = Self.declaration(in: data) {
            throw FeedError(
                .invalidXML,
                "a document type declaration (\(place.what)) is not read: gallerygen reads no XML entities",
                location: SourceLocation(file: name, line: place.line, column: place.column))
        }
        let tree = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = tree
        if !parser.parse() || tree.problem != nil {
            let message = tree.problem ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable"
            throw FeedError(
                .invalidXML, "invalid XML: \(message)",
                location: SourceLocation(
                    file: name, line: max(1, parser.lineNumber), column: max(1, parser.columnNumber)))
        }
        guard let root = tree.root else { throw FeedError(.invalidXML, "\(name): no XML element") }
        return root
    }

    init(root: Element, name: String) throws(FeedError) {
        switch (root.namespace, root.name) {
        case (Namespace.atom, "feed"):
            title = root.child(Namespace.atom, "title")?.plainText
            entries = root.children(Namespace.atom, "entry").flatMap(Self.entries)
            next = Self.nextLink(in: root)
        case ("", "rss"), (Namespace.rdf, "RDF"):
            let channel = root.child("", "channel") ?? root.child(Namespace.rss1, "channel")
            title = channel?.child("", "title")?.plainText ?? channel?.child(Namespace.rss1, "title")?.plainText
            let items = (channel?.children("", "item") ?? []) + root.children(Namespace.rss1, "item")
            entries = items.flatMap(Self.entries)
            next = channel.flatMap(Self.nextLink(in:))
        default:
            throw FeedError(
                .unknownShape,
                "\(name): an XML document whose root is <\(root.name)>, neither an RSS nor an Atom feed")
        }
    }

    /// The `href` of a feed's or channel's `<atom:link rel="next">`.
    private static func nextLink(in element: Element) -> String? {
        element.children(Namespace.atom, "link").first { link in
            (link["rel"] ?? "").split(separator: " ").contains { $0.lowercased() == "next" }
        }?["href"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What the XML declaration (`<?xml version="1.0" encoding="…"?>`) says of the encoding: nil
    /// when there is no declaration or it names none, the name when it names one, and `""` (no
    /// encoding there is) when it cannot be read whole: a declaration that does not end within
    /// its first 1,024 bytes, or an `encoding` not followed by `=` and a quoted name (XML's white
    /// space, line breaks included, allowed around the `=`).
    static func declaredEncoding(in data: Data) -> String? {
        var bytes = data.prefix(1024)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // XML's white space (`\r\n` is one Character in Swift).
        let space: (Character) -> Bool = { $0.unicodeScalars.allSatisfy { " \t\n\r".unicodeScalars.contains($0) } }
        let head = String(decoding: bytes, as: UTF8.self).drop(while: space)
        guard head.hasPrefix("<?xml") else { return nil }
        guard let end = head.range(of: "?>") else { return "" }
        let declaration = head[..<end.lowerBound]
        guard let key = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[key.upperBound...].drop(while: space)
        guard rest.first == "=" else { return "" }
        rest = rest.dropFirst().drop(while: space)
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return "" }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard rest.dropFirst().count > name.count else { return "" }
        return String(name)
    }

    /// Encodings that write ASCII's characters as ASCII's bytes, so that the scan for a
    /// declaration sees what the parser will read: UTF-8, ASCII, ISO 8859, Windows' 125x.
    static func readsAsASCII(_ encoding: String) -> Bool {
        let name = encoding.lowercased().replacingOccurrences(of: "_", with: "-")
        if ["utf-8", "utf8", "us-ascii", "ascii", "latin1", "latin-1"].contains(name) { return true }
        for prefix in ["iso-8859-", "iso8859-", "windows-125", "cp125"] where name.hasPrefix(prefix) {
            return name.dropFirst(prefix.count).allSatisfy(\.isNumber) && name.count > prefix.count
        }
        return false
    }

    /// The first `<!DOCTYPE` or `<!ENTITY`, with its line and column.
    private static func declaration(in data: Data) -> (what: String, line: Int, column: Int)? {
        let bytes = [UInt8](data)
        var line = 1
        var column = 1
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "!") {
                let word = String(decoding: bytes[(index + 2)..<min(bytes.count, index + 9)], as: UTF8.self)
                    .uppercased()
                if word.hasPrefix("DOCTYPE") || word.hasPrefix("ENTITY") {
                    return (word.hasPrefix("DOCTYPE") ? "<!DOCTYPE" : "<!ENTITY", line, column)
                }
            }
            if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return nil
    }

    /// An item's or entry's photos as the list shape names their fields: one per `media:group`
    /// (its largest image) and per `media:content` image beside them (a post of several photos),
    /// else its image or video enclosure or largest thumbnail; none for one that offers no image
    /// or clip at all (a post of text only), which is no photo to report as skipped. A clip is
    /// an item as a photo is.
    private static func entries(_ item: Element) -> [JSONValue] {
        func isImage(_ content: Element) -> Bool {
            let medium = content["medium"]?.lowercased()
            let type = content["type"]?.lowercased()
            return medium == "image" || type?.hasPrefix("image/") == true || (medium == nil && type == nil)
        }
        func isVideo(_ content: Element) -> Bool {
            content["medium"]?.lowercased() == "video" || content["type"]?.lowercased().hasPrefix("video/") == true
        }
        // A clip is an item as a photo is. A group is one thing in several files: its largest
        // image, else (a group of clips alone) its largest clip.
        func pick(in group: Element) -> Element? {
            let contents = group.children(Namespace.media, "content")
            return largest(contents.filter(isImage)) ?? largest(contents.filter(isVideo))
        }
        func largest(_ elements: [Element]) -> Element? {
            // By width, else the first given.
            elements.max { Int($0["width"] ?? "") ?? 0 < Int($1["width"] ?? "") ?? 0 }
        }
        var chosen: [(image: Element?, group: Element?)] = []
        for child in item.children where child.namespace == Namespace.media {
            if child.name == "group", let image = pick(in: child) {
                chosen.append((image, child))
            } else if child.name == "content", isImage(child) || isVideo(child) {
                chosen.append((child, nil))
            }
        }
        if chosen.isEmpty {
            let enclosure = (item.children("", "enclosure") + item.children(Namespace.atom, "link")).first { element in
                guard element.name == "enclosure" || element["rel"] == "enclosure" else { return false }
                let type = element["type"]?.lowercased() ?? ""
                return type.hasPrefix("image/") || type.hasPrefix("video/")
            }
            let thumbnail = largest(
                ([item] + item.children(Namespace.media, "group")).flatMap { $0.children(Namespace.media, "thumbnail") }
            )
            guard let url = enclosure?["url"] ?? enclosure?["href"] ?? thumbnail?["url"] else { return [] }
            return [entry(item, image: nil, group: nil, url: url, number: 0)]
        }
        return chosen.enumerated().map { number, choice in
            entry(item, image: choice.image, group: choice.group, url: choice.image?["url"], number: number)
        }
    }

    /// One photo of `item`: `image` (in `group`, when in one), at `url`; the `number`th of its
    /// item, whose id it then carries with `#N` after it.
    private static func entry(_ item: Element, image: Element?, group: Element?, url: String?, number: Int)
        -> JSONValue
    {
        var fields: [String: JSONValue] = [:]
        func set(_ key: String, _ value: String?) {
            if let value = value?.trimmingWhitespace(), !value.isEmpty { fields[key] = .string(value) }
        }
        let groups = [item] + (group.map { [$0] } ?? [])
        set("imageUrl", url)
        func media(_ name: String) -> Element? {
            ([image, group, item].compactMap { $0 }).lazy.compactMap { $0.child(Namespace.media, name) }.first
        }
        set(
            "title",
            item.child("", "title")?.plainText ?? item.child(Namespace.atom, "title")?.plainText
                ?? media("title")?.plainText)
        set(
            "link",
            item.child("", "link")?.text
                ?? item.children(Namespace.atom, "link").first {
                    ($0["rel"] ?? "alternate") == "alternate"
                }?["href"])
        set(
            "id",
            (item.child("", "guid")?.text ?? item.child(Namespace.atom, "id")?.text).map {
                number == 0 ? $0 : "\($0)#\(number + 1)"
            })
        set(
            "date",
            item.child("", "pubDate").flatMap { RFC822.rfc3339($0.text) }
                ?? item.child(Namespace.dc, "date")?.text ?? item.child(Namespace.atom, "published")?.text
                ?? item.child(Namespace.atom, "updated")?.text)
        // The image's own description is what a reader who cannot see it is told (Mastodon's
        // alt text); the item's is its caption.
        set("alt", image?.child(Namespace.media, "description")?.plainText)
        let itemDescription = [group, item].lazy.compactMap { $0?.child(Namespace.media, "description") }.first
        set("taken", item.child(Namespace.dc, "date.Taken")?.text)
        set(
            "description",
            itemDescription?.plainText
                ?? (item.child("", "description") ?? item.child(Namespace.atom, "summary")
                ?? item.child(Namespace.atom, "content")).map { Self.caption($0.plainText) })
        let keywords =
            media("keywords").map { $0.text.split(separator: ",").map(String.init) }
            ?? media("category").map { $0.text.split(separator: " ").map(String.init) }
            ?? item.children("", "category").map(\.text)
            + item.children(Namespace.atom, "category").compactMap {
                $0["term"]
            }
        let cleaned = keywords.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        if !cleaned.isEmpty { fields["keywords"] = .array(cleaned.map(JSONValue.string)) }
        let credits =
            groups.flatMap { $0.children(Namespace.media, "credit") }
            + (image?.children(Namespace.media, "credit") ?? [])
        let credit =
            credits.first { ["photographer", "author", "owner", "creator"].contains($0["role"]?.lowercased() ?? "") }
            ?? credits.first { $0["role"] == nil }
        set(
            "creator",
            credit?.plainText ?? item.child(Namespace.dc, "creator")?.plainText
                ?? item.child(Namespace.atom, "author")?.child(Namespace.atom, "name")?.plainText)
        set("rights", media("copyright")?.plainText ?? item.child(Namespace.atom, "rights")?.plainText)
        set(
            "licence",
            media("license")?["href"]
                ?? Namespace.creativeCommons.lazy.compactMap {
                    item.child($0, "license")?.text
                }.first)
        return .object(fields)
    }

    /// An RSS item's description or an Atom entry's summary or content as a caption: without the
    /// paragraph Flickr writes before the photo in both ("NAME posted a photo:"), which says
    /// nothing of it.
    static func caption(_ text: String) -> String {
        text.components(separatedBy: "\n\n").filter { paragraph in
            !(paragraph.hasSuffix(" posted a photo:") || paragraph.hasSuffix(" posted a video:"))
        }.joined(separator: "\n\n")
    }

    enum Namespace {
        static let atom = "http://www.w3.org/2005/Atom"
        static let media = "http://search.yahoo.com/mrss/"
        static let dc = "http://purl.org/dc/elements/1.1/"
        static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        static let rss1 = "http://purl.org/rss/1.0/"
        static let creativeCommons = [
            "http://backend.userland.com/creativeCommonsRssModule",
            "http://cyber.law.harvard.edu/rss/creativeCommonsRssModule.html",
        ]
    }

    /// An element of the feed, as read.
    final class Element {
        let namespace: String
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""

        init(namespace: String, name: String, attributes: [String: String]) {
            self.namespace = namespace
            self.name = name
            self.attributes = attributes
        }

        subscript(attribute: String) -> String? { attributes[attribute] }

        func child(_ namespace: String, _ name: String) -> Element? {
            children.first { $0.namespace == namespace && $0.name == name }
        }

        func children(_ namespace: String, _ name: String) -> [Element] {
            children.filter { $0.namespace == namespace && $0.name == name }
        }

        /// The text with markup taken out, when it is HTML (`type="html"`, Atom's `type="html"`,
        /// or RSS's description): tags dropped, paragraphs and line breaks kept as line breaks,
        /// character references read.
        var plainText: String {
            let type = attributes["type"]?.lowercased()
            let html = type == "html" || type == "xhtml" || type == "text/html" || (type == nil && text.contains("<"))
            return html ? HTMLText.plain(text) : text
        }
    }

    /// Builds the tree of elements as libxml2 reports them.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []
        var problem: String?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            guard stack.count < MediaFeed.depthLimit else {
                problem = "elements nested more than \(MediaFeed.depthLimit) deep"
                parser.abortParsing()
                return
            }
            let element = Element(namespace: namespaceURI ?? "", name: elementName, attributes: attributes)
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            stack.last?.text += String(decoding: block, as: UTF8.self)
        }
    }
}

/// Text from a feed's HTML: tags dropped, `<br>` a line break, the end of a paragraph an empty
/// line (a paragraph break, as captions write them), character references (`&amp;`, `&#8217;`)
/// read.
enum HTMLText {
    static func plain(_ html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            text += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[rest.endIndex...]
                break
            }
            let tag = rest[rest.index(after: open)..<close].lowercased()
            if tag.hasPrefix("br") || tag.hasPrefix("/li") {
                text += "\n"
            } else if tag.hasPrefix("/p") || tag.hasPrefix("/div") {
                text += "\n\n"
            }
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        let lines = references(text).split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingWhitespace()
        }
        return lines.split(whereSeparator: \.isEmpty).map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "hellip": "…",
        "mdash": "—", "ndash": "–", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "copy": "©",
    ]

    private static func references(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest.index(after: amp)
            guard let semicolon = rest[after...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[after...]
                continue
            }
            let name = String(rest[after..<semicolon])
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                replacement = named[name]
            }
            if let replacement {
                result += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[after...]
            }
        }
        return result + rest
    }
}

/// RSS's dates (RFC 822 as RFC 1123 writes it: `Sat, 07 Sep 2002 00:00:01 GMT`, `+0200`) as
/// RFC 3339, which the feeds' date reader takes.
enum RFC822 {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let zones: [String: String] = [
        "gmt": "Z", "ut": "Z", "utc": "Z", "z": "Z", "est": "-05:00", "edt": "-04:00", "cst": "-06:00",
        "cdt": "-05:00", "mst": "-07:00", "mdt": "-06:00", "pst": "-08:00", "pdt": "-07:00",
    ]

    static func rfc3339(_ text: String) -> String? {
        var parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        if let first = parts.first, first.hasSuffix(",") || Int(first) == nil { parts.removeFirst() }
        guard parts.count >= 4, let day = Int(parts[0]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[1].prefix(3))), var year = Int(parts[2])
        else { return nil }
        if parts[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        let clock = parts[3].split(separator: ":").compactMap { Int($0) }
        guard (2...3).contains(clock.count), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            clock.count == 2 || (0...60).contains(clock[2])
        else { return nil }
        var zone = "Z"
        if parts.count > 4 {
            let given = parts[4]
            if let known = zones[given] {
                zone = known
            } else if given.count == 5, let sign = given.first, sign == "+" || sign == "-",
                Int(given.dropFirst()) != nil
            {
                zone = "\(sign)\(given.dropFirst().prefix(2)):\(given.suffix(2))"
            }
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(year)-\(two(month + 1))-\(two(day))T\(two(clock[0])):\(two(clock[1])):\(two(clock.count == 3 ? clock[2] : 0))"
            + zone
    }
}
