import Foundation

/// Takes where a photo was taken out of a JPEG file without touching anything else: the GPS
/// block of its EXIF is emptied and its bytes zeroed, and every GPS property of its XMP packets
/// is overwritten with spaces. The file keeps its length, its pixels (the scan is not read),
/// and every other field (caption, creator, rights) byte for byte; any JPEG reader reads it as
/// before, less the place.
///
/// Other formats keep their EXIF in containers (HEIF's items, PNG's chunks) this does not edit:
/// ``removingPlace(fromJPEG:)`` answers nil for them, and the build publishes something else.
package enum PlaceRemover {
    /// The file's bytes with the place removed; nil when they are not a JPEG whose segments can
    /// be walked up to its scan. Bytes without a place come back unchanged.
    package static func removingPlace(fromJPEG file: [UInt8]) -> [UInt8]? {
        guard file.count >= 4, file[0] == 0xFF, file[1] == 0xD8 else { return nil }
        var bytes = file
        var offset = 2
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
            // The scan (or the end) comes after every metadata segment.
            if marker == 0xDA || marker == 0xD9 { return bytes }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let start = offset + 4
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return nil }
            if marker == 0xE1 {
                if hasPrefix(bytes, at: start, Self.exifHeader) {
                    // A GPS block this cannot follow may hold a place it cannot remove.
                    guard emptyGPS(in: &bytes, tiff: start + exifHeader.count, end: end) else { return nil }
                } else if hasPrefix(bytes, at: start, Self.xmpHeader)
                    || hasPrefix(bytes, at: start, Self.extendedXMPHeader)
                {
                    blankXMPPlace(in: &bytes, range: start..<end)
                }
            }
            offset = end
        }
        return nil
    }

    private static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
    private static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let extendedXMPHeader: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    private static func hasPrefix(_ bytes: [UInt8], at offset: Int, _ prefix: [UInt8]) -> Bool {
        offset + prefix.count <= bytes.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
    }

    // MARK: EXIF

    /// Empties the GPS IFD of the TIFF structure at `tiff..<end`: its entry count, entries, link
    /// and the values they point to become zeros. IFD0's pointer to it stays and leads to an IFD
    /// of no entries, which every reader takes as no GPS. False when the structure cannot be
    /// followed to its GPS block, or that block points outside it.
    private static func emptyGPS(in bytes: inout [UInt8], tiff: Int, end: Int) -> Bool {
        guard tiff + 8 <= end else { return false }
        let little: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return false
        }
        func read(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= end - tiff else { return nil }
            var value = 0
            for index in 0..<size {
                let byte = Int(bytes[tiff + offset + (little ? size - 1 - index : index)])
                value = value << 8 | byte
            }
            return value
        }
        func zero(_ offset: Int, _ count: Int) -> Bool {
            guard offset >= 0, count >= 0, offset + count <= end - tiff else { return false }
            for index in 0..<count { bytes[tiff + offset + index] = 0 }
            return true
        }
        guard let first = read(4, 4), let count = read(first, 2), first + 2 + count * 12 <= end - tiff else {
            return false
        }
        var gps: Int?
        for entry in 0..<count {
            let at = first + 2 + entry * 12
            if read(at, 2) == 0x8825 { gps = read(at + 8, 4) }
        }
        guard let gps else { return true }
        guard let entries = read(gps, 2), gps + 2 + entries * 12 + 4 <= end - tiff else { return false }
        for entry in 0..<entries {
            let at = gps + 2 + entry * 12
            guard let type = read(at + 2, 2), let items = read(at + 4, 4) else { return false }
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8][type] ?? 1
            let total = size * items
            if total > 4 {
                guard let value = read(at + 8, 4), zero(value, total) else { return false }
            }
        }
        return zero(gps, 2 + entries * 12 + 4)
    }

    // MARK: XMP

    /// Overwrites with spaces, inside one XMP segment, every property of the EXIF namespace whose
    /// name starts with `GPS` (exif:GPSLatitude, exif:GPSLongitude, ...; IPTC's location
    /// structures use the same properties), in both of RDF's forms: an attribute, or an element
    /// with its content. What remains is the same XML with whitespace where they were.
    private static func blankXMPPlace(in bytes: inout [UInt8], range: Range<Int>) {
        // ISO Latin 1 maps each byte to one character and back: offsets stay byte offsets.
        let text = String(decoding: bytes[range].map { UInt16($0) }, as: UTF16.self) as NSString
        for prefix in prefixes(boundTo: "http://ns.adobe.com/exif/1.0/", in: text as String) {
            let name = NSRegularExpression.escapedPattern(for: prefix) + ":GPS[A-Za-z0-9_]*"
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
                for match in expression.matches(in: text as String, range: NSRange(location: 0, length: text.length)) {
                    for index in match.range.location..<(match.range.location + match.range.length) {
                        bytes[range.lowerBound + index] = 0x20
                    }
                }
            }
        }
    }

    /// The prefixes a packet binds to `namespace` (`xmlns:exif="…"`), `exif` among them always:
    /// a packet that uses the usual prefix without declaring it is still read by some tools.
    private static func prefixes(boundTo namespace: String, in text: String) -> Set<String> {
        var found: Set<String> = ["exif"]
        let pattern =
            "xmlns:([A-Za-z_][A-Za-z0-9._-]*)\\s*=\\s*[\"']" + NSRegularExpression.escapedPattern(for: namespace)
            + "[\"']"
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return found }
        let whole = NSRange(location: 0, length: (text as NSString).length)
        for match in expression.matches(in: text, range: whole) {
            found.insert((text as NSString).substring(with: match.range(at: 1)))
        }
        return found
    }
}
