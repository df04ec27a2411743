import Foundation
import GalleryCore
import Metadata
import Testing

@Suite struct XMPPacketTests {
    /// As Lightroom Classic writes a sidecar: element form, lists, a zone on the date.
    static let lightroom = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 7.0-c000">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:lr="http://ns.adobe.com/lightroom/1.0/"
            xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/"
            xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
           xmp:Rating="4"
           photoshop:DateCreated="2024-05-01T14:32:10.25+02:00"
           xmpRights:WebStatement="https://example.com/licence">
           <dc:title><rdf:Alt><rdf:li xml:lang="de">Fjord</rdf:li><rdf:li xml:lang="x-default">Fjord at dawn</rdf:li></rdf:Alt></dc:title>
           <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Mist over the water &amp; the &lt;hills&gt;.</rdf:li></rdf:Alt></dc:description>
           <dc:subject><rdf:Bag><rdf:li>fjord</rdf:li><rdf:li>morning</rdf:li></rdf:Bag></dc:subject>
           <lr:hierarchicalSubject><rdf:Bag><rdf:li>Places|Europe|Norway</rdf:li><rdf:li>darktable|format|jpg</rdf:li></rdf:Bag></lr:hierarchicalSubject>
           <dc:creator><rdf:Seq><rdf:li>Ada Lovelace</rdf:li></rdf:Seq></dc:creator>
           <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© 2024 Ada Lovelace</rdf:li></rdf:Alt></dc:rights>
           <Iptc4xmpCore:AltTextAccessibility><rdf:Alt><rdf:li xml:lang="x-default">A grey fjord under mist</rdf:li></rdf:Alt></Iptc4xmpCore:AltTextAccessibility>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test func readsEveryFieldLightroomWrites() {
        let packet = XMPPacket(bytes: Array(XMPPacketTests.lightroom.utf8))
        #expect(packet.warnings.isEmpty)
        let said = packet.metadata
        #expect(said.title == "Fjord at dawn")
        #expect(said.description == "Mist over the water & the <hills>.")
        #expect(said.alt == "A grey fjord under mist")
        #expect(said.keywords == ["fjord", "morning", "Norway"])
        #expect(said.taken == CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"))
        #expect(said.rating == 4)
        #expect(said.creator == "Ada Lovelace")
        #expect(said.rights == "© 2024 Ada Lovelace")
        #expect(said.licence == "https://example.com/licence")
    }

    /// Prefixes are the writer's choice: properties are matched by namespace.
    @Test func matchesByNamespaceNotPrefix() {
        let text = """
            <r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><r:Description
             xmlns:d="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#"
             xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="2023-12-31T23:59:59">
            <d:title>Plain title</d:title>
            <cc:license r:resource="https://creativecommons.org/licenses/by-sa/4.0/"/>
            <dc:title xmlns:dc="urn:not-dublin-core">Not this</dc:title>
            </r:Description></r:RDF>
            """
        let said = XMPPacket(bytes: Array(text.utf8)).metadata
        #expect(said.title == "Plain title")
        #expect(said.licence == "https://creativecommons.org/licenses/by-sa/4.0/")
        #expect(said.taken?.local == "2023-12-31T23:59:59")
        #expect(said.taken?.offset == nil)
    }

    /// JPEG puts the namespace and a NUL before the packet; libvips may keep them.
    @Test func skipsTheSegmentHeader() {
        let bytes =
            Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(XMPPacketTests.lightroom.utf8) + [0, 0x20, 0x20]
        let packet = XMPPacket(bytes: bytes)
        #expect(packet.warnings.isEmpty)
        #expect(packet.metadata.title == "Fjord at dawn")
    }

    @Test(arguments: [
        ("<x:xmpmeta><rdf:RDF>", "not well-formed"),
        ("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><x>&a;</x>", "not well-formed"),
        ("<a>&unknown;</a>", "not well-formed"),
        ("<a></b>", "not well-formed"),
        ("no xml here", "holds no XML"),
        (String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100), "not well-formed"),
    ])
    func brokenPacketsAreWarnings(text: String, warning: String) {
        let packet = XMPPacket(bytes: Array(text.utf8))
        #expect(packet.metadata.isEmpty)
        #expect(packet.warnings.count == 1)
        #expect(packet.warnings.first?.contains(warning) == true, "\(packet.warnings)")
    }

    @Test func badUTF8IsAWarningAndTheRestIsRead() {
        var bytes = Array(
            #"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Caf"#
                .utf8)
        bytes += [0xE9]  // Latin-1 é
        bytes += Array("</dc:title></rdf:Description></rdf:RDF>".utf8)
        let packet = XMPPacket(bytes: bytes)
        #expect(packet.warnings == ["its XMP is not valid UTF-8; the bad bytes were replaced"])
        #expect(packet.metadata.title == "Caf\u{FFFD}")
    }

    /// Thousands of namespace declarations, each copied into every element's scope, would cost
    /// seconds a photo: a packet may declare 256.
    @Test func aFloodOfNamespacesIsRefused() {
        let declarations = (0..<300).map { " xmlns:p\($0)=\"urn:\($0)\"" }.joined()
        let packet = XMPPacket(bytes: Array("<x\(declarations)><y/></x>".utf8))
        #expect(packet.metadata.isEmpty)
        #expect(packet.warnings.first?.contains("more than 256 namespace declarations") == true, "\(packet.warnings)")
    }

    @Test func anOversizedPacketIsNotRead() {
        let packet = XMPPacket(bytes: [UInt8](repeating: 0x20, count: XMPPacket.sizeLimit + 1))
        #expect(packet.metadata.isEmpty)
        #expect(packet.warnings.first?.contains("over the 2 MiB read") == true)
    }
}

@Suite struct GeoPointTests {
    /// darktable writes the place in the sidecar in XMP's own form: degrees, decimal minutes and
    /// the hemisphere's letter.
    @Test func readsThePlaceFromXMP() {
        let packet = XMPPacket(
            bytes: Array(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="59,54.83208N"
                 exif:GPSLongitude="74,0.36W"/></rdf:RDF></x:xmpmeta>
                """.utf8))
        let place = packet.metadata.location
        #expect(abs((place?.latitude ?? 0) - 59.913868) < 1e-6)
        #expect(abs((place?.longitude ?? 0) + 74.006) < 1e-6)
        // One coordinate alone is no place.
        let half = XMPPacket(
            bytes: Array(
                """
                <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description
                 xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="59,54.8N"/></rdf:RDF>
                """.utf8))
        #expect(half.metadata.location == nil && half.metadata.isEmpty)
    }

    @Test func readsEXIFsRationalsAndEveryXMPForm() {
        #expect(
            GeoPoint.degrees(rationals: "59/1 54/1 31203/625", reference: "N").map { ($0 * 1e6).rounded() }
                == 59_913_868)
        #expect(GeoPoint.degrees(rationals: "33/1 52/1 0/1", reference: "S") == -(33 + 52.0 / 60))
        #expect(GeoPoint.degrees(rationals: "10/1 45/0 1/1", reference: "E") == nil, "a zero denominator")
        #expect(GeoPoint.degrees(rationals: "", reference: "E") == nil)
        #expect(GeoPoint.degrees(xmp: "59,54,49.925N").map { ($0 * 1e6).rounded() } == 59_913_868)
        #expect(GeoPoint.degrees(xmp: "151.2093E") == 151.2093)
        #expect(GeoPoint.degrees(xmp: "12,30W") == -12.5)
        #expect(GeoPoint.degrees(xmp: "north") == nil)
        // A sign on the degrees is the coordinate's: -33° 52.13' is south of -33°.
        #expect(GeoPoint.degrees(xmp: "-33,52.2") == -(33 + 52.2 / 60))
        #expect(GeoPoint.degrees(xmp: "-33,52.2S") == 33 + 52.2 / 60, "two signs: north")
        // macOS Photos: a plain decimal, the hemisphere in exif:GPSLongitudeRef; a letter in the
        // value wins over it.
        #expect(GeoPoint.degrees(xmp: "63.5697", reference: "W") == -63.5697)
        #expect(GeoPoint.degrees(xmp: "33.45", reference: " s ") == -33.45)
        #expect(GeoPoint.degrees(xmp: "33.45", reference: "N") == 33.45)
        #expect(GeoPoint.degrees(xmp: "12,30E", reference: "W") == 12.5)
        let packet = XMPPacket(
            bytes: Array(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="33.45"
                 exif:GPSLatitudeRef="S" exif:GPSLongitude="70.65" exif:GPSLongitudeRef="W"/></rdf:RDF></x:xmpmeta>
                """.utf8))
        #expect(packet.metadata.location == GeoPoint(latitude: -33.45, longitude: -70.65))
    }

    @Test func onlyAPlaceOnEarthAndRoundedAsAsked() throws {
        #expect(GeoPoint(latitude: 91, longitude: 0) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: -180.5) == nil)
        let oslo = try #require(GeoPoint(latitude: 59.913868, longitude: 10.752245))
        #expect(oslo.rounded(to: 1) == GeoPoint(latitude: 59.9, longitude: 10.8))
        #expect(oslo.rounded(to: 5) == GeoPoint(latitude: 59.91387, longitude: 10.75225))
        #expect(GeoPoint(stored: oslo.stored) == oslo)
        #expect(GeoPoint(stored: "91,0") == nil && GeoPoint(stored: "1;2") == nil)
        // Decoded as untrusted as it was read.
        let json = Data(#"{"location": {"latitude": 200, "longitude": 0}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PhotoMetadata.self, from: json) }
        let kept = try JSONDecoder().decode(
            PhotoMetadata.self, from: Data(#"{"location": {"latitude": -33.9, "longitude": 151.2}}"#.utf8))
        #expect(kept.location == GeoPoint(latitude: -33.9, longitude: 151.2))
        #expect(LocationPrecision.off.places == nil)
    }

    /// The same packet in UTF-16, both byte orders, with and without a byte-order mark, padded
    /// with a NUL as some writers end a block: read as in UTF-8. Halves that do not decode (a
    /// lone surrogate) are a warning, not NUL-filled text.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aPacketInUTF16IsReadAsInUTF8(bigEndian: Bool, mark: Bool) {
        let units = (mark ? [UInt16(0xFEFF)] : []) + Array(XMPPacketTests.lightroom.utf16)
        var bytes: [UInt8] = []
        for unit in units {
            let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
            bytes += bigEndian ? [high, low] : [low, high]
        }
        let packet = XMPPacket(bytes: bytes + [0])
        #expect(packet.warnings.isEmpty, "\(packet.warnings)")
        #expect(packet.metadata == XMPPacket(bytes: Array(XMPPacketTests.lightroom.utf8)).metadata)
        #expect(packet.metadata.rating == 4)
        let broken = XMPPacket(
            bytes: bigEndian ? [0x00, 0x3C, 0xD8, 0x00, 0x00, 0x3E] : [0x3C, 0x00, 0x00, 0xD8, 0x3E, 0x00])
        #expect(broken.warnings == ["its XMP is UTF-16 that does not decode; not read"])
    }
}
