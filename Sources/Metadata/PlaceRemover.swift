import Foundation

/// Takes where a photo was taken out of a JPEG file without touching anything else: every GPS
/// block of its EXIF is emptied and its bytes zeroed, and every GPS property of its XMP packet
/// (in any namespace: `exif:GPSLatitude`, a drone's `drone-dji:GpsLatitude`) is overwritten
/// with spaces. The file keeps its length, its pixels (the scan is not read), and every other
/// field (caption, creator, rights) byte for byte; any JPEG reader reads it as before, less the
/// place.
///
/// It refuses (answers nil) rather than guess: a file it cannot walk, a GPS block it cannot
/// follow, metadata where it does not clean it (extended XMP that still names a GPS property,
/// XMP or EXIF in a segment of another kind, a Photoshop block holding XMP, EXIF or XMP after
/// the first scan, as a second image appended to the file carries), or any text `GPS` left in a
/// metadata segment after cleaning. The build then offers another file.
///
/// Other formats keep their EXIF in containers (HEIF's items, PNG's chunks) this does not edit:
/// they are refused too.
package enum PlaceRemover {
    /// The file's bytes with the place removed; nil when that cannot be done for sure. Bytes
    /// without a place come back unchanged.
    package static func removingPlace(fromJPEG file: [UInt8]) -> [UInt8]? {
        guard file.count >= 4, file[0] == 0xFF, file[1] == 0xD8 else { return nil }
        var bytes = file
        var offset = 2
        var extended: [UInt8] = []
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            // Fill bytes, and markers that carry no length.
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xDA || marker == 0xD9 {
                // Extended XMP is checked whole: a name may be split between two of its parts.
                guard !containsGPS(extended) else { return nil }
                // After the first scan: nothing this would have had to clean.
                let rest = bytes[offset...]
                for needle in [exifHeader, xmpMeta, Array("http://ns.adobe.com/xap/1.0/".utf8)]
                where contains(rest, needle) {
                    return nil
                }
                return bytes
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let start = offset + 4
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return nil }
            let isMetadata = (0xE0...0xEF).contains(marker) || marker == 0xFE
            if marker == 0xE1, hasPrefix(bytes, at: start, Self.exifHeader) {
                // A GPS block this cannot follow may hold a place it cannot remove.
                guard emptyGPS(in: &bytes, tiff: start + exifHeader.count, end: end) else { return nil }
                // XMP kept inside the EXIF (TIFF's tag 700) is not cleaned here.
                guard !contains(bytes[start..<end], xmpMeta) else { return nil }
            } else if marker == 0xE1, hasPrefix(bytes, at: start, Self.xmpHeader) {
                blankXMPPlace(in: &bytes, range: start..<end)
                guard !containsGPS(bytes[start + xmpHeader.count..<end]) else { return nil }
            } else if marker == 0xE1, hasPrefix(bytes, at: start, Self.extendedXMPHeader) {
                blankXMPPlace(in: &bytes, range: start..<end)
                // Its header (GUID, length, offset: 40 bytes) is binary; the text follows.
                extended += bytes[min(end, start + extendedXMPHeader.count + 40)..<end]
            } else if isMetadata {
                // Any other segment (JFIF, ICC, IPTC, Adobe, a comment) must hold no place and
                // no EXIF or XMP this did not clean.
                // (Binary, such as an ICC profile: the letters in the three ways a name writes them.)
                let payload = bytes[start..<end]
                for needle in [exifHeaderStart, xmpMeta, Array("GPS".utf8), Array("Gps".utf8), Array("gps".utf8)]
                where contains(payload, needle) {
                    return nil
                }
            }
            offset = end
        }
        return nil
    }

    private static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
    private static let exifHeaderStart: [UInt8] = Array("Exif\0".utf8)
    private static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let extendedXMPHeader: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    private static let xmpMeta: [UInt8] = Array("xmpmeta".utf8)

    private static func hasPrefix(_ bytes: [UInt8], at offset: Int, _ prefix: [UInt8]) -> Bool {
        offset + prefix.count <= bytes.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
    }

    /// Whether `needle` occurs in `haystack`.
    private static func contains(_ haystack: some Collection<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = haystack.startIndex
        while let found = haystack[index...].firstIndex(of: first) {
            if haystack[found...].starts(with: needle) { return true }
            index = haystack.index(after: found)
        }
        return false
    }

    /// Whether `bytes` hold the letters GPS, in any case (what every GPS property's name holds).
    private static func containsGPS(_ bytes: some Collection<UInt8>) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in bytes {
            let lower = byte | 0x20
            if previous == (UInt8(ascii: "g"), UInt8(ascii: "p")), lower == UInt8(ascii: "s") { return true }
            previous = (previous.1, lower)
        }
        return false
    }

    // MARK: EXIF

    /// Empties every GPS IFD of the TIFF structure at `tiff..<end`, wherever a pointer to one
    /// stands (IFD0, the thumbnail's IFD1, the EXIF IFD, the interoperability IFD): its entry
    /// count, entries, link and the values they point to become zeros. The pointers stay and
    /// lead to IFDs of no entries, which every reader takes as no GPS. False when the structure
    /// cannot be followed, or a GPS block points outside it.
    private static func emptyGPS(in bytes: inout [UInt8], tiff: Int, end: Int) -> Bool {
        guard tiff + 8 <= end else { return false }
        let little: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return false
        }
        let size = end - tiff
        func read(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= size else { return nil }
            var value = 0
            for index in 0..<count {
                let byte = Int(bytes[tiff + offset + (little ? count - 1 - index : index)])
                value = value << 8 | byte
            }
            return value
        }
        func zero(_ offset: Int, _ count: Int) -> Bool {
            guard offset >= 0, count >= 0, offset + count <= size else { return false }
            for index in 0..<count { bytes[tiff + offset + index] = 0 }
            return true
        }
        // The IFDs to read, and the GPS IFDs found in them.
        guard let first = read(4, 4) else { return false }
        var pending = [first]
        var visited: Set<Int> = []
        var gpsBlocks: Set<Int> = []
        while let ifd = pending.popLast() {
            guard ifd != 0, visited.insert(ifd).inserted else { continue }
            guard visited.count <= 16, let count = read(ifd, 2), ifd + 2 + count * 12 + 4 <= size else { return false }
            for entry in 0..<count {
                let at = ifd + 2 + entry * 12
                guard let tag = read(at, 2), let pointer = read(at + 8, 4) else { return false }
                switch tag {
                case 0x8825: gpsBlocks.insert(pointer)
                case 0x8769, 0xA005: pending.append(pointer)
                default: break
                }
            }
            // IFD0's link leads to IFD1 (the thumbnail's).
            if ifd == first, let next = read(ifd + 2 + count * 12, 4) { pending.append(next) }
        }
        for gps in gpsBlocks {
            guard let entries = read(gps, 2), gps + 2 + entries * 12 + 4 <= size else { return false }
            for entry in 0..<entries {
                let at = gps + 2 + entry * 12
                guard let type = read(at + 2, 2), let items = read(at + 4, 4) else { return false }
                let width = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8][type] ?? 1
                let total = width * items
                if total > 4 {
                    guard let value = read(at + 8, 4), zero(value, total) else { return false }
                }
            }
        }
        // Only now: two pointers may share a block, emptied once its entries were read.
        for gps in gpsBlocks {
            guard let entries = read(gps, 2), zero(gps, 2 + entries * 12 + 4) else { return false }
        }
        return true
    }

    // MARK: XMP

    /// Overwrites with spaces, inside one XMP segment, every property whose local name starts
    /// with `GPS` in any case and any namespace (exif:GPSLatitude, exif:GPSLongitude, a drone's
    /// drone-dji:GpsLatitude; IPTC's location structures use the exif ones), with or without a
    /// prefix, in both of RDF's forms: an attribute, or an element with its content. What remains
    /// is the same XML with whitespace where they were.
    private static func blankXMPPlace(in bytes: inout [UInt8], range: Range<Int>) {
        // ISO Latin 1 maps each byte to one character and back: offsets stay byte offsets.
        let text = String(decoding: bytes[range].map { UInt16($0) }, as: UTF16.self)
        let name = "(?:[A-Za-z_][A-Za-z0-9._-]*:)?[Gg][Pp][Ss][A-Za-z0-9_.-]*"
        let patterns = [
            // An attribute: ` exif:GPSLatitude="59,55.2N"`.
            "\\s\(name)\\s*=\\s*(\"[^\"]*\"|'[^']*')",
            // An element without content, then one with it (its own closing tag ends it).
            "<(\(name))(\\s[^>]*)?/>",
            "<(\(name))(\\s[^>]*)?>.*?</\\1\\s*>",
        ]
        for pattern in patterns {
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
            else { continue }
            let whole = NSRange(location: 0, length: (text as NSString).length)
            for match in expression.matches(in: text, range: whole) {
                for index in match.range.location..<(match.range.location + match.range.length) {
                    bytes[range.lowerBound + index] = 0x20
                }
            }
        }
    }
}
