package import GalleryCore

/// The fields gallerygen shows, read from an XMP packet: embedded in a photo, or a sidecar
/// (`IMG_0001.xmp`, as darktable and Lightroom write them). Properties are matched by namespace
/// URI, not by prefix, in both of RDF's forms (attributes of `rdf:Description`, or elements with
/// `rdf:Alt`, `rdf:Bag` and `rdf:Seq` lists).
package struct XMPPacket {
    package static let sizeLimit = 2 << 20

    /// What the packet says.
    package var metadata = PhotoMetadata()
    /// What was wrong with it; the fields read before the fault are kept.
    package var warnings: [String] = []

    /// Reads a packet (an XMP sidecar, or the block libvips found in a photo, which may begin
    /// with the `http://ns.adobe.com/xap/1.0/` header JPEG puts before it).
    package init(bytes: some Collection<UInt8>) {
        guard bytes.count <= Self.sizeLimit else {
            warnings.append("its XMP is \(bytes.count) bytes, over the \(Self.sizeLimit >> 20) MiB read; not read")
            return
        }
        var bytes = Array(bytes)
        // UTF-16, against the XMP specification for JPEG, but written by some tools (exiftool's
        // own test images carry one): read as exiftool reads it.
        if let order = Self.utf16Order(of: bytes) {
            guard let decoded = Self.utf8(fromUTF16: bytes, bigEndian: order) else {
                warnings.append("its XMP is UTF-16 that does not decode; not read")
                return
            }
            bytes = decoded
        }
        // The packet starts at its first element: anything before `<` (a JPEG segment's
        // namespace header, a NUL) is not XML.
        guard let start = Self.start(of: bytes) else {
            if !bytes.isEmpty { warnings.append("its XMP block holds no XML; not read") }
            return
        }
        bytes.removeFirst(start)
        // Padding and a trailing NUL after the packet.
        while let last = bytes.last, last == 0 || last == 0x20 || last == 0x0A { bytes.removeLast() }
        if String(strictUTF8: bytes) == nil {
            warnings.append("its XMP is not valid UTF-8; the bad bytes were replaced")
        }
        let tree: XMLTree
        do {
            tree = try XMLTree(bytes: bytes)
        } catch {
            warnings.append("its XMP is not well-formed XML (\(error)); not read")
            return
        }
        var properties = Properties()
        properties.collect(tree.root, scope: Namespaces())
        metadata = properties.metadata
    }

    /// Big-endian (true) or little-endian (false) when the packet is UTF-16: its byte-order mark,
    /// or its first `<` next to a NUL; nil when it is not.
    static func utf16Order(of bytes: [UInt8]) -> Bool? {
        guard bytes.count >= 2 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0xFE, 0xFF), (0x00, UInt8(ascii: "<")): return true
        case (0xFF, 0xFE), (UInt8(ascii: "<"), 0x00): return false
        default: return nil
        }
    }

    /// The UTF-8 of UTF-16 `bytes` (a byte-order mark first dropped), or nil when they do not
    /// decode (an odd length, a lone surrogate).
    static func utf8(fromUTF16 bytes: [UInt8], bigEndian: Bool) -> [UInt8]? {
        var bytes = bytes[...]
        // A NUL that ends the block, past the last pair.
        if bytes.count % 2 == 1, bytes.last == 0 { bytes = bytes.dropLast() }
        guard bytes.count % 2 == 0 else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        for index in stride(from: bytes.startIndex, to: bytes.endIndex, by: 2) {
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            units.append(UInt16(high) << 8 | UInt16(low))
        }
        if units.first == 0xFEFF { units.removeFirst() }
        var out: [UInt8] = []
        out.reserveCapacity(units.count)
        let failed = transcode(
            units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true, into: { out.append($0) })
        return failed ? nil : out
    }

    private static func start(of bytes: [UInt8]) -> Int? {
        // `<?xpacket`, `<x:xmpmeta` or `<rdf:RDF`: the first `<` is where XML begins.
        bytes.firstIndex(of: UInt8(ascii: "<"))
    }
}

extension String {
    /// The text of `bytes` when they are valid UTF-8 with no NUL; nil otherwise.
    package init?(strictUTF8 bytes: [UInt8]) {
        guard !bytes.contains(0) else { return nil }
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}

/// The namespace URIs XMP's fields live in.
enum Namespace {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xml = "http://www.w3.org/XML/1998/namespace"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    static let xmp = "http://ns.adobe.com/xap/1.0/"
    static let xmpRights = "http://ns.adobe.com/xap/1.0/rights/"
    static let creativeCommons = "http://creativecommons.org/ns#"
    static let iptcCore = "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
    static let lightroom = "http://ns.adobe.com/lightroom/1.0/"
    static let exif = "http://ns.adobe.com/exif/1.0/"
}

/// The prefixes in scope at an element.
struct Namespaces {
    private var prefixes: [String: String] = ["xml": Namespace.xml]

    /// The scope inside `element`, with its own declarations.
    func entering(_ element: XMLTree.Element) -> Namespaces {
        var scope = self
        for (name, value) in element.attributes {
            if name == "xmlns" {
                scope.prefixes[""] = value
            } else if name.hasPrefix("xmlns:") {
                scope.prefixes[String(name.dropFirst(6))] = value
            }
        }
        return scope
    }

    /// `dc:title` -> (dc's URI, `title`); nil for an undeclared prefix.
    func resolve(_ name: String) -> (namespace: String, local: Substring)? {
        guard let colon = name.firstIndex(of: ":") else {
            return prefixes[""].map { ($0, name[...]) }
        }
        guard let namespace = prefixes[String(name[..<colon])] else { return nil }
        return (namespace, name[name.index(after: colon)...])
    }
}

/// Property values by namespace and name, as the RDF gives them.
private struct Properties {
    /// Each property's values: one for a simple value, a list's items in order; an `rdf:Alt`'s
    /// `x-default` item first.
    var values: [String: [String]] = [:]

    mutating func collect(_ element: XMLTree.Element, scope outer: Namespaces) {
        let scope = outer.entering(element)
        if let (namespace, local) = scope.resolve(element.name), namespace == Namespace.rdf, local == "Description" {
            for (name, value) in element.attributes where !name.hasPrefix("xmlns") {
                guard let (namespace, local) = scope.resolve(name), namespace != Namespace.rdf else { continue }
                values[namespace + local, default: []].append(value)
            }
            for property in element.elements { read(property, scope: scope.entering(property)) }
            return
        }
        for child in element.elements { collect(child, scope: scope) }
    }

    /// A property element of an `rdf:Description`.
    mutating func read(_ property: XMLTree.Element, scope: Namespaces) {
        guard let (namespace, local) = scope.resolve(property.name) else { return }
        let key = namespace + local
        for (name, value) in property.attributes {
            if let (attributeNamespace, attributeLocal) = scope.resolve(name), attributeNamespace == Namespace.rdf,
                attributeLocal == "resource"
            {
                values[key, default: []].append(value)
                return
            }
        }
        let children = property.elements
        if let list = children.first(where: { child in
            guard let (namespace, local) = scope.entering(child).resolve(child.name) else { return false }
            return namespace == Namespace.rdf && ["Alt", "Bag", "Seq"].contains(local)
        }) {
            let listScope = scope.entering(list)
            var items: [String] = []
            for item in list.elements {
                let itemScope = listScope.entering(item)
                guard let (namespace, local) = itemScope.resolve(item.name), namespace == Namespace.rdf,
                    local == "li"
                else { continue }
                let isDefault = item.attributes.contains { name, value in
                    itemScope.resolve(name).map { $0.namespace == Namespace.xml && $0.local == "lang" } == true
                        && value == "x-default"
                }
                if isDefault { items.insert(item.text, at: 0) } else { items.append(item.text) }
            }
            values[key, default: []] += items
        } else if children.isEmpty {
            values[key, default: []].append(property.text)
        }
        // A struct (`rdf:parseType="Resource"`, a nested Description) carries nothing shown.
    }

    func first(_ namespace: String, _ local: String) -> String? {
        values[namespace + local]?.first { !$0.isVisiblyEmpty }
    }

    func all(_ namespace: String, _ local: String) -> [String] {
        values[namespace + local] ?? []
    }

    var metadata: PhotoMetadata {
        var keywords = all(Namespace.dc, "subject")
        // Lightroom's hierarchy (`Places|Europe|Iceland`): its leaves, beside the flat list.
        // darktable files its own bookkeeping there (`darktable|format|jpg`): not a keyword.
        for path in all(Namespace.lightroom, "hierarchicalSubject") where !path.hasPrefix("darktable|") {
            if let leaf = path.split(separator: "|").last { keywords.append(String(leaf)) }
        }
        let date =
            first(Namespace.photoshop, "DateCreated") ?? first(Namespace.exif, "DateTimeOriginal")
            ?? first(Namespace.xmp, "CreateDate")
        return PhotoMetadata(
            title: first(Namespace.dc, "title"),
            description: first(Namespace.dc, "description"),
            alt: first(Namespace.iptcCore, "AltTextAccessibility"),
            keywords: keywords,
            taken: date.flatMap { CaptureTime.parse($0) },
            rating: first(Namespace.xmp, "Rating").flatMap { Double($0.trimmingWhitespace()) }
                .flatMap { $0.isFinite && abs($0) < 100 ? Int($0) : nil },
            creator: all(Namespace.dc, "creator").filter { !$0.isVisiblyEmpty }.joined(separator: ", ")
                .nilWhenEmpty,
            rights: first(Namespace.dc, "rights"),
            licence: first(Namespace.creativeCommons, "license") ?? first(Namespace.xmpRights, "WebStatement"),
            location: location)
    }

    /// `exif:GPSLatitude` and `exif:GPSLongitude`, both or neither, each in its hemisphere.
    var location: GeoPoint? {
        guard
            let latitude = first(Namespace.exif, "GPSLatitude").flatMap({
                GeoPoint.degrees(xmp: $0, reference: first(Namespace.exif, "GPSLatitudeRef"))
            }),
            let longitude = first(Namespace.exif, "GPSLongitude").flatMap({
                GeoPoint.degrees(xmp: $0, reference: first(Namespace.exif, "GPSLongitudeRef"))
            })
        else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}

extension String {
    package var nilWhenEmpty: String? { isEmpty ? nil : self }
}
