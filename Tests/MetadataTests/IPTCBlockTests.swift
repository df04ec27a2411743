import Crypto
import GalleryCore
import Metadata
import Testing

@Suite struct IPTCBlockTests {
    static func dataset(_ record: UInt8, _ number: UInt8, _ text: some Collection<UInt8>) -> [UInt8] {
        [0x1C, record, number, UInt8(text.count >> 8), UInt8(text.count & 0xFF)] + Array(text)
    }

    static func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
        dataset(record, number, Array(text.utf8))
    }

    /// Resource 0x0404 inside a JPEG APP13 payload, after another resource.
    static func photoshop(_ iptc: [UInt8]) -> [UInt8] {
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            var bytes = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
            let size = UInt32(data.count)
            bytes += [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
            bytes += data
            if data.count % 2 == 1 { bytes.append(0) }
            return bytes
        }
        return Array("Photoshop 3.0\0".utf8) + resource(0x0425, [1, 2, 3]) + resource(0x0404, iptc)
    }

    @Test func readsTheApplicationRecord() {
        let iptc =
            Self.dataset(1, 90, [0x1B, 0x25, 0x47]) + Self.dataset(2, 5, "Fjord")
            + Self.dataset(2, 120, "Mist, morning")
            + Self.dataset(2, 25, "fjord") + Self.dataset(2, 25, "Norway") + Self.dataset(2, 80, "Ada Lovelace")
            + Self.dataset(2, 116, "© 2024 Ada") + Self.dataset(2, 55, "20240501") + Self.dataset(2, 60, "143210+0200")
        let block = IPTCBlock(bytes: Self.photoshop(iptc))
        #expect(block.warnings.isEmpty)
        #expect(block.metadata.title == "Fjord")
        #expect(block.metadata.description == "Mist, morning")
        #expect(block.metadata.keywords == ["fjord", "Norway"])
        #expect(block.metadata.creator == "Ada Lovelace")
        #expect(block.metadata.rights == "© 2024 Ada")
        #expect(block.metadata.taken == CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"))
        // Bare IIM reads the same.
        #expect(IPTCBlock(bytes: iptc).metadata == block.metadata)
    }

    @Test func textWithoutTheUTF8MarkIsLatin1() {
        let block = IPTCBlock(bytes: Self.dataset(2, 5, [0x43, 0x61, 0x66, 0xE9]))
        #expect(block.metadata.title == "Café")
        #expect(block.warnings.isEmpty)
    }

    /// Windows-1252's letters at 0x80-0x9F (`€`, `Ÿ`, quotes), where Latin-1 has controls; its
    /// five undefined bytes are left out with a warning.
    @Test func textWithoutTheUTF8MarkIsWindows1252() {
        let block = IPTCBlock(
            bytes: Self.dataset(2, 80, [0x4A, 0x65, 0x6E, 0x73, 0x20, 0x54, 0x72, 0x9F, 0x62])
                + Self.dataset(2, 5, [0x93, 0x80, 0x35, 0x94]))
        #expect(block.metadata.creator == "Jens TrŸb" && block.metadata.title == "“€5”")
        #expect(block.warnings.isEmpty)
        let undefined = IPTCBlock(bytes: Self.dataset(2, 5, [0x41, 0x81, 0x42]))
        #expect(undefined.metadata.title == "AB")
        #expect(undefined.warnings.count == 1 && undefined.warnings[0].contains("Windows-1252"))
        #expect(!undefined.warnings[0].contains("\u{0}"))
    }

    /// The digest a tool that kept XMP in step stored (resource 0x0425): the block's MD5, or not.
    @Test func theStoredDigestIsCheckedAgainstTheBlock() {
        let iptc = Self.dataset(2, 5, "Fjord")
        func payload(digest: [UInt8]) -> [UInt8] {
            var bytes = Array("Photoshop 3.0\0".utf8)
            for (id, data) in [(0x0425, digest), (0x0404, iptc)] {
                bytes +=
                    Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, 0, 0, UInt8(data.count)] + data
                if data.count % 2 == 1 { bytes.append(0) }
            }
            return bytes
        }
        let md5 = Array(Insecure.MD5.hash(data: iptc))
        #expect(IPTCBlock(bytes: payload(digest: md5)).digestMatches == true)
        #expect(IPTCBlock(bytes: payload(digest: [UInt8](repeating: 0, count: 16))).digestMatches == false)
        #expect(IPTCBlock(bytes: Self.photoshop(iptc)).digestMatches == nil)
        #expect(IPTCBlock(bytes: iptc).digestMatches == nil)
    }

    @Test func badUTF8UnderTheMarkIsAWarning() {
        let block = IPTCBlock(bytes: Self.dataset(1, 90, [0x1B, 0x25, 0x47]) + Self.dataset(2, 5, [0x43, 0xE9]))
        #expect(block.metadata.title == "C\u{FFFD}")
        #expect(block.warnings == ["its IPTC text is not valid UTF-8; the bad bytes were replaced"])
    }

    @Test func aCutBlockKeepsWhatCameBefore() {
        let bytes = Self.dataset(2, 5, "Kept") + [0x1C, 2, 120, 0x10, 0x00] + Array("short".utf8)
        let block = IPTCBlock(bytes: bytes)
        #expect(block.metadata.title == "Kept")
        #expect(block.warnings == ["its IPTC block is cut short; the rest was not read"])
    }

    @Test func anOversizedBlockIsNotRead() {
        let block = IPTCBlock(bytes: [UInt8](repeating: 0x1C, count: IPTCBlock.sizeLimit + 1))
        #expect(block.metadata.isEmpty)
        #expect(block.warnings.count == 1)
    }

    @Test func garbageIsNothing() {
        for bytes in [[UInt8](), [0x00, 0x01], Array("8BIM\u{04}\u{04}".utf8), Array("Photoshop 3.0\0junk".utf8)] {
            let block = IPTCBlock(bytes: bytes)
            #expect(block.metadata.isEmpty)
        }
    }
}
