import Foundation
import GalleryCore
import Testing

@testable import GalleryJSON

@Suite struct CoreRecordsTests {
    static let image = ProcessedImage(
        width: 4000, height: 3000,
        renditions: [
            Rendition(
                format: .webp, width: 480, height: 360, path: "images/0123456789abcdef-480.webp", byteCount: 31_337),
            Rendition(
                format: .jpeg, width: 960, height: 720, path: "images/fedcba9876543210-960.jpg",
                byteCount: 5_000_000_000),
        ],
        placeholder: Placeholder(color: "#a1b2c3", dataURI: "data:image/webp;base64,UklGRg==")
    )

    /// The manifest is written by hand (``Manifest/encoded()``) and read with JSONDecoder, its file
    /// list by hand: each reads back exactly what was written, with every optional set and with
    /// none.
    @Test func manifestReadsBackWhatItWrote() async throws {
        let manifest = Manifest(
            photos: [
                ManifestPhoto(
                    id: "1", source: "https://example.com/a b/\u{e9}.jpg?x=1&y=\"2\"",
                    sha256: String(repeating: "ab", count: 32),
                    validators: Validators(etag: #"W/"x\y""#, lastModified: "Tue, 15 Nov 1994 12:45:26 GMT"),
                    renditions: Self.image.renditions),
                ManifestPhoto(
                    id: "2", source: "photos/b.jpg", sha256: nil, validators: nil, renditions: [],
                    error: "404\nnot found"),
                ManifestPhoto(
                    id: "3", source: "c", sha256: "00", validators: Validators(etag: "\"e\""), renditions: []),
            ],
            files: ["index.html", "images/x-480.webp"]
        )
        #expect(try Manifest.decode(await manifest.encoded()) == manifest)
        // Its file list alone, the photos (escapes, nesting, numbers, null) skipped unread.
        #expect(try Manifest.fileList(of: await manifest.encoded()) == manifest.files)
        #expect(
            Manifest.fileList(of: Data(#"{"photos": [{"a": [1, -2.5e3, null, true, "\"}"]}], "files": []}"#.utf8)) == []
        )
        for broken in [#"{"files": ["a"], "photos": [}"#, #"{"files": [1]}"#, #"{"photos": "x"#, "[]", ""] {
            #expect(Manifest.fileList(of: Data(broken.utf8)) == nil, "\(broken)")
        }
        #expect(
            try Manifest.decode(try JSONEncoder().encode(Manifest(photos: [], files: [])))
                == Manifest(photos: [], files: []))
    }

    @Test func renditionRecordReadsBackWhatItWrote() throws {
        #expect(try ProcessedImage.decode(JSONEncoder().encode(Self.image)) == Self.image)
    }

    @Test func renditionRecordsOfTheOldCacheReadBackWithTheirStamps() throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.image)) as? [String: Any])
        #expect(try ProcessedImage.decodeRecord(JSONSerialization.data(withJSONObject: object)).stamps == nil)
        object["stamps"] = "1:2 3:4"
        let (image, stamps) = try ProcessedImage.decodeRecord(JSONSerialization.data(withJSONObject: object))
        #expect(image == Self.image && stamps == "1:2 3:4")
    }

    @Test func aWrongValueNamesItsPath() {
        func message(_ text: String) -> String? {
            do {
                _ = try Manifest.decode(Data(text.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        let text =
            #"{"version": 1, "files": [], "photos": [{"id": "1", "source": "s", "renditions": [{"format": "webp", "width": "480"}]}]}"#
        #expect(message(text) == "photos[0].renditions[0].width: not a Int")
        #expect(
            message(text.replacingOccurrences(of: #""webp""#, with: #""gif""#))
                == "photos[0].renditions[0].format: not a valid value")
        #expect(message(text.replacingOccurrences(of: #""source": "s", "#, with: "")) == "photos[0].source: missing")
        let broken = message("{\"version\": 1,")
        #expect(broken?.hasPrefix("not valid JSON: line 1, column ") == true, "\(broken ?? "")")
        #expect(message("[]") == "the top level: not a Dictionary<String, Any>")
    }
}
