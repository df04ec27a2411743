import Crypto
package import GalleryCore

/// The fields gallerygen shows, read from an IPTC-IIM block: the Application Record (2) of the
/// datasets that Photoshop, Lightroom and exiftool write, inside the Photoshop resources of a
/// JPEG's APP13 segment (resource 0x0404) or bare.
package struct IPTCBlock {
    /// The most a block is read: past it, the block is reported and skipped.
    package static let sizeLimit = 1 << 20

    package var metadata = PhotoMetadata()
    package var warnings: [String] = []
    /// Whether the block is as the last tool that kept XMP in step with it left it: the MD5 that
    /// tool stored (Photoshop resource 0x0425) against the block's. Nil when none is stored.
    package var digestMatches: Bool?

    package init(bytes: some Collection<UInt8>) {
        guard bytes.count <= Self.sizeLimit else {
            warnings.append(
                "its IPTC block is \(bytes.count) bytes, over the \(Self.sizeLimit >> 20) MiB read; not read")
            return
        }
        let bytes = Array(bytes)
        let records: ArraySlice<UInt8>
        if bytes.first == 0x1C {
            records = bytes[...]
        } else if let found = Self.iptcResource(in: bytes) {
            records = found
            if let stored = Self.resource(0x0425, in: bytes), stored.count == 16 {
                digestMatches = Array(Insecure.MD5.hash(data: Array(found))) == Array(stored)
            }
        } else {
            return
        }
        read(records)
    }

    /// The data of Photoshop resource 0x0404 (IPTC-NAA) in an APP13 payload
    /// (`Photoshop 3.0\0` then `8BIM` resources).
    static func iptcResource(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        resource(0x0404, in: bytes)
    }

    /// The data of the Photoshop resource `wanted` in an APP13 payload.
    static func resource(_ wanted: Int, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let header = Array("Photoshop 3.0\0".utf8)
        var index = bytes.starts(with: header) ? header.count : 0
        let signature = Array("8BIM".utf8)
        while index + 12 <= bytes.count {
            guard bytes[index..<index + 4].elementsEqual(signature) else { return nil }
            let id = Int(bytes[index + 4]) << 8 | Int(bytes[index + 5])
            // A Pascal string, padded to an even length (its length byte included).
            let nameLength = Int(bytes[index + 6])
            var cursor = index + 6 + nameLength + 1
            if (nameLength + 1) % 2 == 1 { cursor += 1 }
            guard cursor + 4 <= bytes.count else { return nil }
            let size =
                Int(bytes[cursor]) << 24 | Int(bytes[cursor + 1]) << 16 | Int(bytes[cursor + 2]) << 8
                | Int(bytes[cursor + 3])
            cursor += 4
            guard size >= 0, cursor + size <= bytes.count else { return nil }
            if id == wanted { return bytes[cursor..<cursor + size] }
            index = cursor + size + size % 2
        }
        return nil
    }

    private mutating func read(_ records: ArraySlice<UInt8>) {
        var values: [UInt8: [[UInt8]]] = [:]
        var isUTF8 = false
        var index = records.startIndex
        while index + 5 <= records.endIndex, records[index] == 0x1C {
            let record = records[index + 1]
            let dataset = records[index + 2]
            let length = Int(records[index + 3]) << 8 | Int(records[index + 4])
            // An extended length (top bit set) is for binary datasets, never for text.
            guard length & 0x8000 == 0 else {
                warnings.append("its IPTC block has a dataset of extended length; the rest was not read")
                break
            }
            let start = index + 5
            guard start + length <= records.endIndex else {
                warnings.append("its IPTC block is cut short; the rest was not read")
                break
            }
            let data = Array(records[start..<start + length])
            // 1:90, the coded character set: ESC % G is UTF-8.
            if record == 1, dataset == 90, data == [0x1B, 0x25, 0x47] { isUTF8 = true }
            if record == 2 { values[dataset, default: []].append(data) }
            index = start + length
        }
        var badText = false
        var undecodable = false
        func text(_ bytes: [UInt8]) -> String {
            if let text = String(strictUTF8: bytes) { return text }
            // Without the UTF-8 mark, text is Windows-1252, as exiftool reads it (Latin-1, the
            // standard's default, where the two agree; the letters Windows puts at 0x80-0x9F,
            // `Ÿ` and `€` among them, where Latin-1 has controls). With the mark, the bad bytes
            // are replaced and reported.
            if isUTF8 {
                badText = true
                return String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
            }
            var scalars = String.UnicodeScalarView()
            for byte in bytes where byte != 0 {
                if let scalar = Self.windows1252(byte) {
                    scalars.append(scalar)
                } else {
                    undecodable = true
                }
            }
            return String(scalars)
        }
        func first(_ dataset: UInt8) -> String? {
            values[dataset]?.lazy.map(text).first { !$0.isVisiblyEmpty }
        }
        // 2:55 date created (CCYYMMDD) and 2:60 time created (HHMMSS±HHMM).
        var taken: CaptureTime?
        if let day = first(55), day.utf8.count == 8, day.allSatisfy(\.isASCII) {
            let time = first(60) ?? ""
            let isoDay = "\(day.prefix(4))-\(day.dropFirst(4).prefix(2))-\(day.suffix(2))"
            if time.utf8.count >= 6, time.allSatisfy(\.isASCII) {
                let clock = "\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4).prefix(2))"
                let zone = time.utf8.count == 11 ? "\(time.dropFirst(6).prefix(3)):\(time.suffix(2))" : nil
                taken = CaptureTime.parse(isoDay + "T" + clock, offset: zone)
            } else {
                taken = CaptureTime.parse(isoDay)
            }
        }
        metadata = PhotoMetadata(
            title: first(5), description: first(120), keywords: (values[25] ?? []).map(text), taken: taken,
            creator: (values[80] ?? []).map(text).filter { !$0.isVisiblyEmpty }.joined(separator: ", ").nilWhenEmpty,
            rights: first(116))
        if badText { warnings.append("its IPTC text is not valid UTF-8; the bad bytes were replaced") }
        if undecodable {
            warnings.append(
                "its IPTC text declares no character set and holds bytes Windows-1252 has no letter for (0x81, "
                    + "0x8D, 0x8F, 0x90, 0x9D); they were left out")
        }
    }

    /// Windows-1252's letter for `byte`; nil for the five bytes it leaves undefined.
    static func windows1252(_ byte: UInt8) -> Unicode.Scalar? {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        let letters: [UInt32] = [
            0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
            0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
            0x0153, 0, 0x017E, 0x0178,
        ]
        let value = letters[Int(byte - 0x80)]
        return value == 0 ? nil : Unicode.Scalar(value)
    }
}
