import Foundation
import GalleryCore
import Testing

@testable import Metadata

/// OriginalCleaner on JPEG files laid out byte by byte, a place hidden in each of the layouts
/// cameras and editors write. DownloadsTests checks the published files with exiftool.
@Suite struct OriginalCleanerTests {
    /// A TIFF block: IFD0 with the camera's make, a pointer to an EXIF IFD (the exposure time, the
    /// maker note) and one to a GPS IFD (the latitude's hemisphere inline, the latitude and
    /// longitude as three rationals each), and a second IFD (the thumbnail's) with a GPS pointer
    /// of its own.
    static func tiff(littleEndian: Bool, gpsFrom: String = "IFD0") -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            let pair = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            return littleEndian ? pair : pair.reversed()
        }
        func u32(_ value: Int) -> [UInt8] {
            let four = (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) }
            return littleEndian ? four : four.reversed()
        }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value
        }
        // Laid out: header (8), IFD0 (at 8, 3 entries: 2 + 36 + 4 = 42) to 50, EXIF IFD (at 50,
        // 2 entries + a sub-IFD pointer: 2 + 36 + 4) to 92, IFD1 (at 92, 1 entry: 18) to 110,
        // GPS IFD (at 110, 3 entries: 42) to 152, rationals (48) to 200.
        let (exifIFD, ifd1, gps, rationals) = (50, 92, 110, 152)
        var bytes: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        bytes += u32(8)
        bytes += u16(3)
        bytes += entry(0x010F, 2, 4, Array("Cam\0".utf8))
        bytes += entry(0x8769, 4, 1, u32(exifIFD))
        bytes += entry(0x8825, 4, 1, u32(gpsFrom == "IFD0" ? gps : 0))
        bytes += u32(ifd1)
        bytes += u16(3)
        bytes += entry(0x829A, 5, 1, u32(rationals))  // the exposure: 59/1, shown as it is
        bytes += entry(0x927C, 7, 4, Array("GPS!".utf8))  // a maker note
        bytes += entry(gpsFrom == "EXIF" ? 0x8825 : 0xA005, 4, 1, u32(gps))
        bytes += u32(0)
        bytes += u16(1) + entry(0x8825, 4, 1, u32(gps)) + u32(0)
        bytes += u16(3)
        bytes += entry(0x0001, 2, 2, Array("N\0\0\0".utf8))
        bytes += entry(0x0002, 5, 3, u32(rationals))
        bytes += entry(0x0004, 5, 3, u32(rationals + 24))
        bytes += u32(0)
        for number in [59, 54, 50, 10, 45, 8] { bytes += u32(number) + u32(1) }
        precondition(bytes.count == 200)
        return bytes
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    static let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:ex="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
         ex:GPSLatitude="59,54.83N" ex:GPSLongitude = '10,45.13E' photoshop:City="Oslo">
        <ex:GPSAltitude>120/1</ex:GPSAltitude>
        <dc:creator><rdf:Seq><rdf:li>Ada &amp; Co</rdf:li></rdf:Seq></dc:creator>
        <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Harbour</rdf:li></rdf:Alt></dc:title>
        <dc:subject><rdf:Bag><rdf:li>sea</rdf:li><rdf:li>boats</rdf:li></rdf:Bag></dc:subject>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """

    /// The frame's tables and a scan whose coded bytes hold what looks like metadata: all kept as
    /// they are.
    static let frame: [UInt8] =
        segment(0xDB, [0x00] + Array(repeating: 1, count: 64))
        + segment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0])
        + segment(0xC4, [0x00] + Array(repeating: 0, count: 16))
    static let scan: [UInt8] =
        segment(0xDA, [1, 1, 0, 0, 63, 0]) + Array("GPS 59,54 Exif".utf8) + [0xFF, 0x00, 0xFF, 0xD3, 0x12]
    static let image = frame + scan + [0xFF, 0xD9]

    static func jpeg(littleEndian: Bool) -> [UInt8] {
        [0xFF, 0xD8] + segment(0xE0, Array("JFIF\0\u{1}\u{1}\0\0\u{1}\0\u{1}\0\0".utf8))
            + segment(0xE1, Array("Exif\0\0".utf8) + tiff(littleEndian: littleEndian))
            + segment(0xE1, xmpHeader + Array(xmp.utf8)) + image
    }

    /// What no published file may hold: the coordinates as text and as EXIF rationals, in either
    /// byte order, and the names of places.
    static func placeLeft(in file: [UInt8]) -> String? {
        // NULs dropped: UTF-16 text reads as its letters.
        let text = String(decoding: file.filter { $0 != 0 }, as: UTF8.self)
        for word in ["GPS", "Gps", "59,54", "59.9", "10,45", "10.75", "Oslo", "120/1"] where text.contains(word) {
            // The scan's own bytes are the image's, not metadata.
            if text.components(separatedBy: word).count - 1 > (word == "GPS" || word == "59,54" ? 1 : 0) {
                return word
            }
        }
        for order in [[0, 0, 0, 59, 0, 0, 0, 1], [59, 0, 0, 0, 1, 0, 0, 0]] as [[UInt8]] {
            if file.count >= 8, (0...(file.count - 8)).contains(where: { file[$0..<$0 + 8].elementsEqual(order) }) {
                return "59/1 as a rational"
            }
        }
        return nil
    }

    @Test(arguments: [true, false])
    func onlyWhatIsOnTheListIsKept(littleEndian: Bool) throws {
        let file = Self.jpeg(littleEndian: littleEndian)
        #expect(Self.placeLeft(in: file) != nil, "the file had a place")
        let cleaned = try #require(OriginalCleaner.cleaned(jpeg: file))
        #expect(Array(cleaned.suffix(Self.image.count)) == Self.image, "the frame and the scan as they were")
        let exifAt = try #require(cleaned.firstRange(of: Array("Exif\0\0".utf8)))
        let tiff = Array(cleaned[exifAt.upperBound...])
        // IFD0: the make and the EXIF IFD's pointer; the EXIF IFD: the exposure alone.
        #expect(tiff.prefix(2) == (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]), "the byte order kept")
        let text = String(decoding: cleaned.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        #expect(text.contains("Cam "))
        #expect(Self.placeLeft(in: cleaned) == "59/1 as a rational", "only the exposure's 59/1 is left")
        #expect(!text.contains("GPS!"), "no maker note")
        // The XMP written anew says the rest.
        let packetAt = try #require(cleaned.firstRange(of: Self.xmpHeader))
        let packet = XMPPacket(bytes: cleaned[packetAt.upperBound...].prefix { $0 != 0xFF })
        #expect(packet.warnings.isEmpty, "\(packet.warnings)")
        #expect(packet.metadata.creator == "Ada & Co" && packet.metadata.title == "Harbour")
        #expect(packet.metadata.keywords == ["sea", "boats"] && packet.metadata.location == nil)
        #expect(!text.contains("Oslo") && !text.contains("59,54.83") && !text.contains("GPSAltitude"))
        #expect(OriginalCleaner.cleaned(jpeg: cleaned) == cleaned, "cleaning it again changes nothing")
    }

    /// The exposure gone too: then nothing of the coordinates is left, in whatever IFD the GPS
    /// pointer sat.
    @Test(arguments: ["IFD0", "EXIF", "IFD1"])
    func aGPSPointerInAnyIFDLeavesNothing(from ifd: String) throws {
        var tiff = Self.tiff(littleEndian: true, gpsFrom: ifd)
        tiff[50 + 2 + 1] = 0x99  // the exposure's tag: 0x829A -> 0x999A, not on the list
        let file = [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0".utf8) + tiff) + Self.image
        let cleaned = try #require(OriginalCleaner.cleaned(jpeg: file))
        #expect(Self.placeLeft(in: cleaned) == nil)
    }

    /// Each of the layouts a place hides in, beside a clean EXIF block: left behind whole.
    @Test(arguments: [
        (
            "Photoshop's EXIF block (resource 0x0422)",
            segment(
                0xED,
                Array("Photoshop 3.0\08BIM\u{4}\u{22}\0\0".utf8) + [0, 0, 0, 200] + tiff(littleEndian: false))
        ),
        ("an EXIF block labelled exif", segment(0xE1, Array("exif\0\0".utf8) + tiff(littleEndian: true))),
        ("an EXIF block labelled EXIF", segment(0xE1, Array("EXIF\0\0".utf8) + tiff(littleEndian: true))),
        (
            "the EXIF thumbnail's own EXIF (an APP1 inside APP1's data)",
            segment(
                0xE1,
                Array("Exif\0\0".utf8) + Array(tiff(littleEndian: true).prefix(8)) + [0, 0]
                    + [0xFF, 0xD8] + segment(0xE1, Array("Exif\0\0".utf8) + tiff(littleEndian: true)))
        ),
        (
            "XMP in UTF-16",
            segment(0xE1, xmpHeader + [0xFE, 0xFF] + Array(xmp.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        ),
        ("a comment", segment(0xFE, Array("GPS 59.91N 10.75E".utf8))),
        ("a maker's own segment", segment(0xEA, Array("GPS 59,54 10,45".utf8))),
        (
            "extended XMP",
            segment(
                0xE1,
                Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(repeating: 0x30, count: 40)
                    + Array(xmp.utf8))
        ),
        (
            "a second XMP packet",
            segment(0xE1, xmpHeader + Array("<x:xmpmeta/>".utf8)) + segment(0xE1, xmpHeader + Array(xmp.utf8))
        ),
    ])
    func eachHidingPlaceIsLeftBehind(what: String, segments: [UInt8]) throws {
        let file =
            [0xFF, 0xD8]
            + Self.segment(0xE1, Array("Exif\0\0".utf8) + Array(Self.tiff(littleEndian: true).prefix(8)) + [0, 0])
            + segments + Self.image
        #expect(Self.placeLeft(in: file) != nil, "\(what): the file had a place")
        let cleaned = try #require(OriginalCleaner.cleaned(jpeg: file), "\(what)")
        #expect(Self.placeLeft(in: cleaned) == nil, "\(what)")
        #expect(Array(cleaned.suffix(Self.image.count)) == Self.image)
    }

    /// What follows the image (a second image, a motion photo's video) and metadata between two
    /// scans are not kept.
    @Test func afterTheImageAndBetweenScansNothingIsKept() throws {
        let second =
            [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0".utf8) + Self.tiff(littleEndian: false)) + Self.image
        let between = Self.segment(0xE1, Array("Exif\0\0".utf8) + Self.tiff(littleEndian: true))
        let file = [0xFF, 0xD8] + Self.frame + Self.scan + between + Self.scan + [0xFF, 0xD9] + second
        let cleaned = try #require(OriginalCleaner.cleaned(jpeg: file))
        #expect(cleaned == [0xFF, 0xD8] + Self.frame + Self.scan + Self.scan + [0xFF, 0xD9])
    }

    /// A file with nothing to say comes out with its image alone.
    @Test func aFileWithoutMetadataKeepsItsImage() throws {
        let file = [0xFF, 0xD8] + Self.image
        #expect(OriginalCleaner.cleaned(jpeg: file) == file)
    }

    /// What cannot be read whole is refused, and the build offers a rendition.
    @Test(
        arguments: [
            ("not a JPEG", Array("\u{89}PNG\r\n".utf8)),
            ("a segment longer than the file", [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x45]),
            ("no marker where one belongs", [0xFF, 0xD8, 0x12, 0x34, 0, 0]),
            ("no end", [0xFF, 0xD8] + frame + scan),
            ("nothing", []),
        ] as [(String, [UInt8])])
    func whatCannotBeWalkedIsRefused(what: String, file: [UInt8]) {
        #expect(OriginalCleaner.cleaned(jpeg: file) == nil, "\(what)")
    }

    /// An IFD or a value that runs out of the EXIF block: refused, not guessed.
    @Test(arguments: [4, 22 + 8, 52 + 8])
    func anOffsetOutsideTheEXIFBlockIsRefused(at index: Int) throws {
        var tiff = Self.tiff(littleEndian: true)
        tiff[index + 1] = 0x7F  // IFD0's offset, the EXIF IFD's, or the exposure's value
        let file = [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0".utf8) + tiff) + Self.image
        #expect(OriginalCleaner.cleaned(jpeg: file) == nil)
    }

    /// IPTC changed since a tool stored its digest (it no longer matches): the XMP written anew
    /// takes IPTC's title before XMP's, as the page does.
    @Test func iptcChangedSinceItsDigestComesFirst() throws {
        let iptc: [UInt8] = [0x1C, 2, 5, 0, 10] + Array("IPTC title".utf8)
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, 0, 0, UInt8(data.count)] + data
                + (data.count % 2 == 1 ? [0] : [])
        }
        let photoshop =
            Array("Photoshop 3.0\0".utf8) + resource(0x0425, Array(repeating: 7, count: 16)) + resource(0x0404, iptc)
        let xmp =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">XMP title</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>"#
        let file =
            [0xFF, 0xD8] + Self.segment(0xE1, Self.xmpHeader + Array(xmp.utf8)) + Self.segment(0xED, photoshop)
            + Self.image
        let cleaned = try #require(OriginalCleaner.cleaned(jpeg: file))
        let packetAt = try #require(cleaned.firstRange(of: Self.xmpHeader))
        let packet = XMPPacket(bytes: cleaned[packetAt.upperBound...].prefix { $0 != 0xFF })
        #expect(packet.metadata.title == "IPTC title")
    }

    @Test func theXMPWrittenIsReadBackAsItWasSaid() throws {
        let said = PhotoMetadata(
            title: "A <b> & \"c\"", description: "Line one\nLine two", alt: "Alt", keywords: ["x", "y"],
            taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"), rating: 4, creator: "Ada",
            rights: "© Ada", licence: "https://creativecommons.org/licenses/by/4.0/",
            location: GeoPoint(latitude: 59.9, longitude: 10.7))
        let packet = XMPPacket(bytes: try #require(OriginalCleaner.packet(for: said)))
        #expect(packet.warnings.isEmpty)
        var expected = said
        expected.location = nil
        #expect(packet.metadata == expected)
    }
}
