import Foundation
import GalleryCore
import Testing

@testable import Metadata

/// PlaceRemover on JPEG files laid out byte by byte: EXIF in both byte orders, XMP in both of
/// RDF's forms. WhatPhotosSayTests checks it on files exiftool wrote.
@Suite struct PlaceRemoverTests {
    /// A TIFF block: IFD0 with the camera's make and a pointer to a GPS IFD holding the
    /// latitude's hemisphere (inline) and the latitude and longitude (three rationals each,
    /// stored after the IFDs).
    static func tiff(littleEndian: Bool) -> [UInt8] {
        var bytes: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        func u16(_ value: Int) -> [UInt8] {
            let pair = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            return littleEndian ? pair : pair.reversed()
        }
        func u32(_ value: Int) -> [UInt8] {
            let four = (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) }
            return littleEndian ? four : four.reversed()
        }
        bytes += u32(8)
        // IFD0 at 8: two entries, then the link (0).
        let gpsOffset = 8 + 2 + 2 * 12 + 4
        bytes += u16(2)
        bytes += u16(0x010F) + u16(2) + u32(4) + Array("Cam\0".utf8)
        bytes += u16(0x8825) + u16(4) + u32(1) + u32(gpsOffset)
        bytes += u32(0)
        // GPS IFD: three entries, the link, then 48 bytes of rationals.
        let values = gpsOffset + 2 + 3 * 12 + 4
        bytes += u16(3)
        bytes += u16(0x0001) + u16(2) + u32(2) + Array("N\0\0\0".utf8)
        bytes += u16(0x0002) + u16(5) + u32(3) + u32(values)
        bytes += u16(0x0004) + u16(5) + u32(3) + u32(values + 24)
        bytes += u32(0)
        for number in [59, 54, 50, 10, 45, 8] { bytes += u32(number) + u32(1) }
        return bytes
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:ex="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         ex:GPSLatitude="59,54.83N" ex:GPSLongitude = '10,45.13E' ex:ExposureTime="1/60">
        <ex:GPSAltitude>120/1</ex:GPSAltitude><ex:GPSVersionID/>
        <dc:creator><rdf:Seq><rdf:li>Ada</rdf:li></rdf:Seq></dc:creator>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """

    /// The scan: bytes that must come out as they went in, whatever they hold.
    static let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x04, 0x01, 0x02] + Array("GPS 59,54 Exif".utf8) + [0xFF, 0xD9]

    static func jpeg(littleEndian: Bool) -> [UInt8] {
        [0xFF, 0xD8] + segment(0xE0, Array("JFIF\0\u{1}\u{1}".utf8))
            + segment(0xE1, Array("Exif\0\0".utf8) + tiff(littleEndian: littleEndian))
            + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)) + scan
    }

    @Test(arguments: [true, false])
    func theGPSBlockAndTheXMPPlaceGoTheRestStays(littleEndian: Bool) throws {
        let file = Self.jpeg(littleEndian: littleEndian)
        let cleaned = try #require(PlaceRemover.removingPlace(fromJPEG: file))
        #expect(cleaned.count == file.count)
        #expect(Array(cleaned.suffix(Self.scan.count)) == Self.scan, "the scan untouched")
        let exifStart = 2 + 4 + 7 + 4 + 6
        let tiff = Array(cleaned[exifStart..<exifStart + Self.tiff(littleEndian: true).count])
        // IFD0 as it was (the make, the pointer), the GPS IFD and its values all zeros.
        #expect(tiff.prefix(38) == Self.tiff(littleEndian: littleEndian).prefix(38))
        #expect(tiff[38...].allSatisfy { $0 == 0 }, "\(tiff[38...])")
        let text = String(decoding: cleaned, as: UTF8.self)
        #expect(!text.contains("GPSLatitude") && !text.contains("GPSLongitude") && !text.contains("GPSAltitude"))
        #expect(!text.contains("GPSVersionID") && !text.contains("59,54.83") && !text.contains("120/1"))
        #expect(text.contains(#"ex:ExposureTime="1/60""#) && text.contains("<rdf:li>Ada</rdf:li>"))
        // Still a packet an XML parser reads, and it says the rest as before.
        let start = try #require(text.range(of: "<x:xmpmeta"))
        let end = try #require(text.range(of: "</x:xmpmeta>"))
        let packet = XMPPacket(bytes: Array(text[start.lowerBound..<end.upperBound].utf8))
        #expect(packet.warnings.isEmpty, "\(packet.warnings)")
        #expect(packet.metadata.creator == "Ada" && packet.metadata.location == nil)
        let before = XMPPacket(bytes: Array(Self.xmp.utf8))
        #expect(before.metadata.location != nil, "the packet had a place to remove")
    }

    @Test func aFileWithoutAPlaceComesBackAsItWas() throws {
        let file =
            [0xFF, 0xD8] + Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)) + Self.scan
        #expect(PlaceRemover.removingPlace(fromJPEG: file) == file)
    }

    @Test(arguments: [
        [UInt8](Array("\u{89}PNG\r\n".utf8)), [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x45],
        [0xFF, 0xD8, 0x12, 0x34, 0, 0],
        [],
    ])
    func notAJPEGItCanWalkIsNil(file: [UInt8]) {
        #expect(PlaceRemover.removingPlace(fromJPEG: file) == nil)
    }

    /// A drone's own namespace and a GPS property without a prefix are cleaned as exif's are.
    @Test func anyNamespacesGPSPropertiesGo() throws {
        let xmp =
            Array(
                #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description drone-dji:GpsLatitude="+59.91" "#.utf8)
            + Array(
                #"xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"><GPSLongitude xmlns="http://ns.adobe.com/exif/1.0/">10.75</GPSLongitude>"#
                    .utf8)
            + Array("</rdf:Description></rdf:RDF></x:xmpmeta>".utf8)
        let file = [0xFF, 0xD8] + Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp) + Self.scan
        let cleaned = try #require(PlaceRemover.removingPlace(fromJPEG: file))
        let text = String(decoding: cleaned, as: UTF8.self)
        #expect(!text.contains("59.91") && !text.contains("10.75") && text.contains("www.dji.com/drone-dji"), "\(text)")
    }

    /// A GPS pointer in the EXIF IFD (not IFD0) is followed too.
    @Test func aGPSBlockPointedToFromTheEXIFIFDIsEmptied() throws {
        // II, IFD0 at 8 with one entry: the EXIF IFD at 26; it has one entry: GPS at 44.
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        tiff += [1, 0] + [0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0] + [0, 0, 0, 0]
        tiff += [1, 0] + [0x25, 0x88, 4, 0, 1, 0, 0, 0, 44, 0, 0, 0] + [0, 0, 0, 0]
        // GPS: one entry, the latitude's hemisphere "N" inline.
        tiff += [1, 0] + [1, 0, 2, 0, 2, 0, 0, 0, 0x4E, 0, 0, 0] + [0, 0, 0, 0]
        let file = [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0".utf8) + tiff) + Self.scan
        let cleaned = try #require(PlaceRemover.removingPlace(fromJPEG: file))
        #expect(cleaned.count == file.count)
        #expect(!cleaned.contains(0x4E), "the hemisphere is gone")
        #expect(Array(cleaned[(2 + 4 + 6)..<(2 + 4 + 6 + 44)]) == Array(tiff[0..<44]), "the IFDs before it stay")
    }

    /// Metadata where this does not clean it: refused, not published.
    @Test(arguments: [
        ("a second image after the first", Self.scan + [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0MM".utf8))),
        ("Photoshop's block holding XMP", Self.segment(0xED, Array("Photoshop 3.0\08BIM\u{4}\u{24}<x:xmpmeta>".utf8))),
        ("a comment naming a GPS position", Self.segment(0xFE, Array("GPS 59.91N 10.75E".utf8))),
        (
            "extended XMP with a name split between its parts",
            Self.segment(
                0xE1,
                Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(repeating: 0x30, count: 40)
                    + Array("<exif:GP".utf8))
                + Self.segment(
                    0xE1,
                    Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(repeating: 0x30, count: 40)
                        + Array("SLatitude>5".utf8))
        ),
    ])
    func refusedRatherThanGuessed(what: String, segments: [UInt8]) {
        let file = [0xFF, 0xD8] + segments + Self.scan
        #expect(PlaceRemover.removingPlace(fromJPEG: file) == nil, "\(what)")
    }

    /// A GPS block it cannot follow may hold a place it cannot remove: no answer, and the build
    /// offers another file.
    @Test(arguments: [33, 58])
    func aGPSPointerOutsideTheBlockIsNoAnswer(at index: Int) throws {
        var tiff = Self.tiff(littleEndian: true)
        tiff[index] = 0x7F  // the GPS IFD's offset, or the latitude's, far past the block
        let file = [0xFF, 0xD8] + Self.segment(0xE1, Array("Exif\0\0".utf8) + tiff) + Self.scan
        #expect(PlaceRemover.removingPlace(fromJPEG: file) == nil)
    }
}
