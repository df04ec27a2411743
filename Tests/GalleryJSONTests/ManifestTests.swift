import Foundation
import GalleryCore
import Testing

@testable import GalleryJSON

@Suite struct ManifestTests {
    @Test func encodesSortedAndStable() throws {
        let manifest = Manifest(
            photos: [
                ManifestPhoto(
                    id: "1", source: "https://x/a.jpg", sha256: "ab", validators: Validators(etag: "W/\"1\""),
                    renditions: [])
            ],
            files: ["a.html", "images/x.webp"]
        )
        let text = String(decoding: try manifest.encoded(), as: UTF8.self)
        #expect(text.contains("\"etag\":\"W/\\\"1\\\"\""))
        // One photo per line, the keys in order, valid JSON.
        #expect(text.hasPrefix("{\"files\":[") && text.hasSuffix("\"version\":2}\n"))
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
        #expect(text.range(of: "\"files\"")!.lowerBound < text.range(of: "\"photos\"")!.lowerBound)
        #expect(try Manifest.decode(try manifest.encoded()) == manifest)
        #expect(try manifest.encoded() == (try manifest.encoded()))
    }

    @Test func fileNamesAreWrittenAsJSONEncoderWritesThem() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var strings = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        strings += ["photos/a b.html", "é\u{301}", "日本", "\u{7F}\u{80}\u{2028}", "🏔️", "a\"b\\c/d", ""]
        for string in strings {
            var bytes: [UInt8] = []
            RecordLines.appendJSON(string, to: &bytes)
            #expect(bytes == Array(try encoder.encode(string)), "\(string.unicodeScalars.map(\.value))")
        }
        var lines = RecordLines(opening: "[")
        lines.append(strings)
        let decoded = try JSONDecoder().decode([String].self, from: lines.data)
        #expect(decoded == strings)
    }
}
