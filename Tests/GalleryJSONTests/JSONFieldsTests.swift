import Foundation
import GalleryCore
import Testing

@testable import GalleryJSON

@Suite struct JSONFieldsTests {
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

    /// The files are written with JSONEncoder (Codable) and read by hand: each type must read
    /// back exactly what it wrote, with every optional set and with none.
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

    @Test func aWrongValueNamesItsPath() {
        let text =
            #"{"version": 1, "files": [], "photos": [{"id": "1", "source": "s", "renditions": [{"format": "webp", "width": "480"}]}]}"#
        #expect {
            try Manifest.decode(Data(text.utf8))
        } throws: { error in
            (error as? JSONFields.Mismatch)?.description == "photos[0].renditions[0].width: expected an integer"
        }
        let format = text.replacingOccurrences(of: #""webp""#, with: #""gif""#)
        #expect {
            try Manifest.decode(Data(format.utf8))
        } throws: { error in
            (error as? JSONFields.Mismatch)?.description
                == "photos[0].renditions[0].format: expected avif, webp or jpeg"
        }
        #expect(throws: JSONParser.Failure.self) { try Manifest.decode(Data("{\"version\": 1,".utf8)) }
        #expect(throws: JSONFields.Mismatch.self) { try Manifest.decode(Data("[]".utf8)) }
    }
}
