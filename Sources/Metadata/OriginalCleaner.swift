package import GalleryCore

/// Makes the copy of a JPEG original that visitors may download, by what it keeps rather than by
/// what it removes: the coded image as it is (no pixel decoded or re-encoded), and of its
/// metadata only what is on a list of what is safe to publish.
///
/// What the copy holds, in this order:
/// - JFIF's header, without its thumbnail;
/// - an EXIF block made anew: only the tags of ``keptIFD0Tags`` and ``keptExifTags`` (the camera
///   and its settings, the time, the orientation, the caption, creator and copyright), copied
///   value for value from the original's first IFD and its EXIF IFD. No GPS IFD, no second
///   image's IFD (the thumbnail, which has EXIF of its own), no maker note, no other pointer;
/// - an XMP packet written anew from what the original's XMP and IPTC say (title, caption, alt
///   text, keywords, creator, copyright, licence, rating, the day and time taken), never a place;
/// - the ICC profile and Adobe's colour transform, which say how to show the pixels;
/// - the frame's tables and every scan, to the end of the image.
///
/// Everything else is left behind wherever it sits: GPS in any IFD or in Photoshop's blocks, XMP's
/// own bytes (in UTF-8 or UTF-16) and its extended parts, EXIF under a label other than `Exif`, comments, makers' segments,
/// a second image (MPF) and whatever follows the end of the image (a motion photo's video).
///
/// It refuses (nil) a file it cannot read whole: one that is not a baseline or progressive JPEG
/// walked marker by marker to its end, an EXIF block whose IFDs run out of it, or an XMP or IPTC
/// block whose reader found a fault. The build then offers a rendition instead.
package enum OriginalCleaner {
    /// The copy to publish, or nil when the file cannot be read whole.
    package static func cleaned(jpeg file: [UInt8]) -> [UInt8]? {
        file.withUnsafeBufferPointer { cleaned(jpeg: $0) }
    }

    /// Bumped whenever the same original would be cleaned into other bytes: published files'
    /// names carry it, so a new cleaner's copies get new names.
    package static let version = 2

    private static func cleaned(jpeg bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var jfif: [UInt8]?
        var exif: [UInt8]?
        var xmp: XMPPacket?
        var iptc: IPTCBlock?
        var colour: [[UInt8]] = []
        var adobe: [UInt8]?
        var tables: [UInt8] = []
        var offset = 2
        // The header: every segment up to the first scan.
        while true {
            guard let (marker, start, end) = segment(in: bytes, at: &offset) else { return nil }
            let payload = UnsafeBufferPointer(rebasing: bytes[start..<end])
            switch marker {
            case 0xDA:
                offset = start - 4
            case 0xE0 where jfif == nil && payload.count >= 14 && payload.starts(with: jfifHeader):
                // Version, units and densities; no thumbnail.
                jfif = Array(payload[0..<12]) + [0, 0]
            case 0xE1 where payload.starts(with: exifHeader):
                // The first EXIF block is the one readers read; any other is left behind.
                if exif == nil {
                    guard let kept = keptEXIF(UnsafeBufferPointer(rebasing: payload[exifHeader.count...])) else {
                        return nil
                    }
                    exif = kept
                }
            case 0xE1 where payload.starts(with: xmpHeader):
                if xmp == nil {
                    let packet = XMPPacket(bytes: payload[xmpHeader.count...])
                    guard packet.warnings.isEmpty else { return nil }
                    xmp = packet
                }
            case 0xED where payload.starts(with: photoshopHeader):
                if iptc == nil {
                    let block = IPTCBlock(bytes: payload)
                    guard block.warnings.isEmpty else { return nil }
                    iptc = block
                }
            case 0xE2 where payload.starts(with: iccHeader):
                colour.append(segmentBytes(marker, payload))
            case 0xEE where adobe == nil && payload.starts(with: adobeHeader):
                adobe = segmentBytes(marker, payload)
            case 0xE0...0xEF, 0xFE:
                break
            case 0xC0...0xCF, 0xDB, 0xDD:
                tables += segmentBytes(marker, payload)
            default:
                return nil
            }
            if marker == 0xDA { break }
        }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(bytes.count)
        if let jfif { out += segmentBytes(0xE0, jfif) }
        if let exif {
            guard exifHeader.count + exif.count + 2 <= 0xFFFF else { return nil }
            out += segmentBytes(0xE1, exifHeader + exif)
        }
        // XMP first, IPTC where XMP is silent; IPTC first when a tool that knows no XMP changed it
        // since its digest was stored (as EmbeddedMetadataReader reconciles them for the page).
        let (fromXMP, fromIPTC) = (xmp?.metadata ?? PhotoMetadata(), iptc?.metadata ?? PhotoMetadata())
        let said = (iptc?.digestMatches == false ? fromIPTC.filled(from: fromXMP) : fromXMP.filled(from: fromIPTC))
            .bounded()
        if let packet = packet(for: said) {
            let body = xmpHeader + packet
            guard body.count + 2 <= 0xFFFF else { return nil }
            out += segmentBytes(0xE1, body)
        }
        for segment in colour { out += segment }
        if let adobe { out += adobe }
        out += tables
        // The scans, and the tables between them, to the end of the image.
        while true {
            guard let (marker, start, end) = segment(in: bytes, at: &offset) else { return nil }
            let payload = UnsafeBufferPointer(rebasing: bytes[start..<end])
            switch marker {
            case 0xD9:
                out += [0xFF, 0xD9]
                return out
            case 0xDA:
                out += segmentBytes(marker, payload)
                guard let scanEnd = endOfScan(in: bytes, from: end) else { return nil }
                out += bytes[end..<scanEnd]
                offset = scanEnd
            case 0xC4, 0xCC, 0xDB, 0xDD, 0xDC:
                out += segmentBytes(marker, payload)
            case 0xE0...0xEF, 0xFE:
                break
            default:
                return nil
            }
        }
    }

    // MARK: JPEG's segments

    private static let jfifHeader: [UInt8] = Array("JFIF\0".utf8)
    private static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
    private static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let photoshopHeader: [UInt8] = Array("Photoshop 3.0\0".utf8)
    private static let iccHeader: [UInt8] = Array("ICC_PROFILE\0".utf8)
    private static let adobeHeader: [UInt8] = Array("Adobe".utf8)

    /// The marker at `offset` and its payload's range, `offset` moved past it; EOI has none.
    /// Nil for anything but a marker there, or a length that runs out of the file.
    private static func segment(in bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int) -> (
        UInt8, Int, Int
    )? {
        guard offset < bytes.count, bytes[offset] == 0xFF else { return nil }
        // Fill bytes before a marker.
        while offset + 1 < bytes.count, bytes[offset + 1] == 0xFF { offset += 1 }
        guard offset + 1 < bytes.count else { return nil }
        let marker = bytes[offset + 1]
        if marker == 0xD9 {
            offset += 2
            return (marker, offset, offset)
        }
        // No other marker without a length belongs between segments.
        guard marker != 0x00, marker != 0x01, !(0xD0...0xD8).contains(marker), offset + 4 <= bytes.count else {
            return nil
        }
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        let start = offset + 4
        let end = offset + 2 + length
        guard length >= 2, end <= bytes.count else { return nil }
        offset = end
        return (marker, start, end)
    }

    /// Where a scan's coded data that begins at `start` ends: the next marker that is not a
    /// stuffed byte or a restart. Nil when the file ends first.
    private static func endOfScan(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF {
                let next = bytes[index + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    index += 2
                    continue
                }
                if next == 0xFF {
                    index += 1
                    continue
                }
                return index
            }
            index += 1
        }
        return nil
    }

    private static func segmentBytes(_ marker: UInt8, _ payload: some Collection<UInt8>) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    // MARK: EXIF

    /// IFD0's tags that are kept: the caption, the camera's make and model, the orientation and
    /// resolution, the file's date, the artist and the copyright.
    package static let keptIFD0Tags: Set<UInt16> = [
        0x010E, 0x010F, 0x0110, 0x0112, 0x011A, 0x011B, 0x0128, 0x0132, 0x013B, 0x0213, 0x8298,
    ]
    /// The EXIF IFD's: the exposure, the lens, the times taken and their offsets, the colour space
    /// and the size. No maker note (which may hold a place), no owner's name or serial numbers.
    package static let keptExifTags: Set<UInt16> = [
        0x829A, 0x829D, 0x8822, 0x8827, 0x8830, 0x9000, 0x9003, 0x9004, 0x9010, 0x9011, 0x9012, 0x9201, 0x9202,
        0x9204, 0x9205, 0x9207, 0x9208, 0x9209, 0x920A, 0x9286, 0x9290, 0x9291, 0x9292, 0xA000, 0xA001, 0xA002,
        0xA003, 0xA402, 0xA403, 0xA404, 0xA405, 0xA406, 0xA408, 0xA409, 0xA40A, 0xA432, 0xA433, 0xA434,
    ]

    private struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: [UInt8]
    }

    /// The bytes of each TIFF type's value.
    private static func unitSize(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// A TIFF structure of the kept tags, in the original's byte order; nil when IFD0 or the EXIF
    /// IFD cannot be read whole.
    private static func keptEXIF(_ tiff: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let numbers = TIFFNumbers(UnsafeRawBufferPointer(tiff)), let first = numbers.firstIFD else { return nil }
        let read = numbers.read
        func entries(at ifd: Int, keeping kept: Set<UInt16>) -> (kept: [Entry], exifIFD: Int?)? {
            // (Some writers leave out the next IFD's offset at the block's end.)
            guard let count = read(ifd, 2), ifd + 2 + count * 12 <= tiff.count else { return nil }
            var found: [Entry] = []
            var exifIFD: Int?
            for index in 0..<count {
                let at = ifd + 2 + index * 12
                guard let tag = read(at, 2), let type = read(at + 2, 2), let number = read(at + 4, 4) else {
                    return nil
                }
                if tag == 0x8769 {
                    guard let pointer = read(at + 8, 4) else { return nil }
                    exifIFD = pointer
                    continue
                }
                guard kept.contains(UInt16(tag)), !found.contains(where: { $0.tag == tag }),
                    let unit = unitSize(of: UInt16(type))
                else { continue }
                let (size, overflow) = unit.multipliedReportingOverflow(by: number)
                guard !overflow, size <= 65_535 else { return nil }
                let start: Int
                if size <= 4 {
                    start = at + 8
                } else {
                    guard let pointer = read(at + 8, 4) else { return nil }
                    start = pointer
                }
                guard start + size <= tiff.count else { return nil }
                found.append(
                    Entry(
                        tag: UInt16(tag), type: UInt16(type), count: UInt32(number),
                        value: Array(tiff[start..<start + size])))
            }
            return (found, exifIFD)
        }
        guard let (ifd0, exifPointer) = entries(at: first, keeping: keptIFD0Tags) else { return nil }
        var exifEntries: [Entry] = []
        if let exifPointer {
            guard let (found, _) = entries(at: exifPointer, keeping: keptExifTags) else { return nil }
            exifEntries = found
        }
        return tiffBytes(ifd0: ifd0, exif: exifEntries, bigEndian: numbers.bigEndian)
    }

    /// IFD0 at offset 8, its values after it, then the EXIF IFD and its values; tags in order.
    private static func tiffBytes(ifd0: [Entry], exif: [Entry], bigEndian: Bool) -> [UInt8] {
        func number(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { index in
                UInt8(truncatingIfNeeded: value >> (8 * (bigEndian ? count - 1 - index : index)))
            }
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        out += number(42, 2) + number(8, 4)
        func write(_ entries: [Entry], pointer: UInt16?) -> Int {
            var all = entries
            // The EXIF IFD's offset is filled in once known.
            if let pointer { all.append(Entry(tag: pointer, type: 4, count: 1, value: [0, 0, 0, 0])) }
            all.sort { $0.tag < $1.tag }
            let start = out.count
            var valueOffset = start + 2 + all.count * 12 + 4
            var values: [UInt8] = []
            var pointerAt = 0
            out += number(all.count, 2)
            for entry in all {
                out += number(Int(entry.tag), 2) + number(Int(entry.type), 2) + number(Int(entry.count), 4)
                if entry.tag == pointer { pointerAt = out.count }
                if entry.value.count <= 4 {
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                } else {
                    out += number(valueOffset, 4)
                    values += entry.value
                    if entry.value.count % 2 == 1 { values.append(0) }
                    valueOffset = start + 2 + all.count * 12 + 4 + values.count
                }
            }
            out += number(0, 4)
            out += values
            return pointerAt
        }
        let pointerAt = write(ifd0, pointer: exif.isEmpty ? nil : 0x8769)
        if !exif.isEmpty {
            out.replaceSubrange(pointerAt..<pointerAt + 4, with: number(out.count, 4))
            _ = write(exif, pointer: nil)
        }
        return out
    }

    // MARK: XMP

    /// An XMP packet of what `said` holds but its place; nil when it holds nothing to write.
    package static func packet(for said: PhotoMetadata) -> [UInt8]? {
        var properties: [String] = []
        func alt(_ name: String, _ value: String?) {
            guard let value else { return }
            properties.append(
                "<\(name)><rdf:Alt><rdf:li xml:lang=\"x-default\">\(escaped(value))</rdf:li></rdf:Alt></\(name)>")
        }
        func list(_ name: String, _ kind: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            let items = values.map { "<rdf:li>\(escaped($0))</rdf:li>" }.joined()
            properties.append("<\(name)><rdf:\(kind)>\(items)</rdf:\(kind)></\(name)>")
        }
        func simple(_ name: String, _ value: String?) {
            guard let value else { return }
            properties.append("<\(name)>\(escaped(value))</\(name)>")
        }
        alt("dc:title", said.title)
        alt("dc:description", said.description)
        alt("Iptc4xmpCore:AltTextAccessibility", said.alt)
        list("dc:subject", "Bag", said.keywords)
        list("dc:creator", "Seq", said.creator.map { [$0] } ?? [])
        alt("dc:rights", said.rights)
        simple("xmpRights:WebStatement", said.licence)
        simple("xmp:Rating", said.rating.map(String.init))
        simple("photoshop:DateCreated", said.taken.map { $0.local + ($0.offset ?? "") })
        guard !properties.isEmpty else { return nil }
        let text =
            "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
            + " xmlns:Iptc4xmpCore=\"http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/\""
            + " xmlns:xmpRights=\"http://ns.adobe.com/xap/1.0/rights/\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\""
            + " xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\">"
            + properties.joined() + "</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end=\"r\"?>"
        return Array(text.utf8)
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            // Not allowed in XML 1.0: left out.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": break
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
