import Foundation
import Testing

@testable import Feed
@testable import GalleryCore

@Suite struct FeedReaderTests {
    let remote = URL(string: "https://api.example.com/v1/feed.json")!
    let local = URL(fileURLWithPath: "/sites/demo/feed.json")

    func read(_ json: String, at location: URL? = nil, format: FeedFormat = .auto, fields: FieldMapping? = nil)
        throws -> FeedDocument
    {
        let reader = FeedReader(configuration: .init(format: format, fields: fields, largestWidth: 1600))
        return try reader.document(from: Data(json.utf8), location: location ?? remote, name: "feed.json")
    }

    @Test func readsJSONPlaceholderPhotos() throws {
        let document = try read(
            """
            [{"albumId": 1, "id": 1, "title": "one", "url": "https://photos.example.com/600/92c952.jpg",
              "thumbnailUrl": "https://photos.example.com/150/92c952.jpg"},
             {"albumId": 2, "id": 51, "title": "two", "url": "https://photos.example.com/600/8e973b.jpg",
              "thumbnailUrl": "https://photos.example.com/150/8e973b.jpg"}]
            """
        )
        #expect(document.photos.map(\.title) == ["one", "two"])
        #expect(document.photos.map(\.id) == ["1", "51"])
        #expect(document.photos.map(\.album) == ["1", "2"])
        // A numeric album id reads "Album N"; its pages keep the id's name.
        #expect(document.albums[["1"]]?.title == "Album 1" && document.albums[["2"]]?.title == "Album 2")
        #expect(document.photos[0].source.absoluteString == "https://photos.example.com/600/92c952.jpg")
    }

    @Test func readsITunesResultsAtTheLargestWidth() throws {
        let document = try read(
            """
            {"resultCount": 2, "results": [
              {"trackId": 1, "trackName": "Photo Journal",
               "artworkUrl100": "https://artwork.example.com/x/AppIcon-100x100bb.jpg"},
              {"trackId": 2, "collectionName": "Quiet Places",
               "artworkUrl60": "https://artwork.example.com/y/cover-60x60bb.jpg"}]}
            """
        )
        #expect(document.photos.map(\.title) == ["Photo Journal", "Quiet Places"])
        #expect(document.photos[0].source.absoluteString == "https://artwork.example.com/x/AppIcon-1600x1600bb.jpg")
        #expect(document.photos[1].album == "Quiet Places")
    }

    @Test func datesInTheShapesFeedsWriteThem() {
        #expect(FeedDate.parse("2026-11-20T07:30:00Z") == Date(timeIntervalSince1970: 1_795_159_800))
        #expect(FeedDate.parse("2026-11-20T07:30:00.250Z") == Date(timeIntervalSince1970: 1_795_159_800.25))
        #expect(FeedDate.parse(" 2026-11-20 ") == Date(timeIntervalSince1970: 1_795_132_800))
        #expect(FeedDate.parse("2026-11-20T08:30:00+01:00") == Date(timeIntervalSince1970: 1_795_159_800))
        #expect(FeedDate.parse("last Tuesday") == nil)
        for bad in ["2026-13-01", "2026-02-30", "2026-11-20T24:00:00Z", "2026-11-20T07:30:00", "2026-11-20T07:30Z"] {
            #expect(FeedDate.parse(bad) == nil, "\(bad)")
        }
        #expect(FeedDate.parse("2024-02-29") != nil, "a leap day")
    }

    @Test func readsJSONFeedImagesAndImageAttachments() throws {
        let document = try read(
            """
            {"version": "https://jsonfeed.org/version/1.1", "title": "Field notes", "items": [
              {"id": "a", "title": "Harbour", "image": "media/harbour.jpg", "url": "https://notes.example.org/a",
               "date_published": "2026-11-20T08:30:00+01:00"},
              {"id": "b", "summary": "The ridge", "attachments": [
                {"url": "https://notes.example.org/doc.pdf", "mime_type": "application/pdf"},
                {"url": "https://notes.example.org/media/ridge.webp", "mime_type": "image/webp"}]},
              {"id": "c", "title": "No picture today", "content_text": "Rain."}]}
            """
        )
        #expect(document.title == "Field notes")
        #expect(document.photos.map(\.id) == ["a", "b"])
        #expect(document.photos[0].source.absoluteString == "https://api.example.com/v1/media/harbour.jpg")
        #expect(document.photos[0].link?.absoluteString == "https://notes.example.org/a")
        #expect(document.photos[1].title == "The ridge")
        #expect(document.photos[0].date == Date(timeIntervalSince1970: 1_795_159_800))
        #expect(document.photos[1].date == nil)
        #expect(document.photos.allSatisfy { $0.hasFeedID })
        #expect(
            document.skipped == [
                FeedIssue(index: 2, message: "no image URL (image or an image or video attachment); skipped")
            ])
    }

    @Test func readsAPlainListAndResolvesRelativeURLsAgainstALocalFeed() throws {
        let document = try read(
            #"[{"title": "Misty", "imageUrl": "photos/misty.jpg"}, {"title": "Salt", "imageUrl": "../salt.jpg"}]"#,
            at: local
        )
        #expect(document.photos.map(\.source.path) == ["/sites/demo/photos/misty.jpg", "/sites/salt.jpg"])
        #expect(document.photos.allSatisfy { $0.source.isFileURL })
        #expect(document.photos.map(\.id) == ["1", "2"])
    }

    @Test func mapsTheFieldsOfAnotherShape() throws {
        let fields = FieldMapping(items: "data.photos", image: "media.large", title: "caption", album: "set", id: "key")
        let document = try read(
            """
            {"data": {"photos": [
              {"key": "k1", "caption": "First", "set": "Trips", "media": {"large": "https://cdn.example.com/1.jpg"}},
              {"key": "k2", "caption": "No media"}]}}
            """,
            fields: fields
        )
        #expect(document.photos.map(\.id) == ["k1"])
        #expect(document.photos[0].album == "Trips")
        #expect(document.skipped.map(\.index) == [1])
        #expect(document.skipped[0].message.contains("media.large"))
    }

    @Test func invalidJSONNamesLineAndColumn() {
        let error = #expect(throws: FeedError.self) {
            try read("[\n  {\"title\": \"a\", \"imageUrl\": \"x.jpg\"},\n  {\"title\": tru}\n]")
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.location == SourceLocation(file: "feed.json", line: 3, column: 13))
        #expect(error?.description.hasPrefix("feed.json:3:13: invalid JSON") == true)
    }

    @Test func anUnknownShapeSaysWhatToDo() {
        let error = #expect(throws: FeedError.self) { try read(#"[{"picture": "a.jpg"}]"#) }
        #expect(error?.code == .unknownShape)
        #expect(error?.message.contains("feed.fields") == true)
    }

    @Test func dangerousAndUnusableURLsAreSkippedByIndex() throws {
        let document = try read(
            """
            [{"title": "ok", "imageUrl": "https://cdn.example.com/a.jpg"},
             {"title": "<script>alert(1)</script>", "imageUrl": "javascript:alert(1)"},
             {"title": "local", "imageUrl": "file:///etc/passwd"},
             {"title": "data", "imageUrl": "data:image/png;base64,AAAA"},
             {"title": "none", "imageUrl": ""}]
            """
        )
        #expect(document.photos.map(\.title) == ["ok"])
        #expect(document.skipped.map(\.index) == [1, 2, 3, 4])
        #expect(document.skipped[0].message.contains("javascript"))
        #expect(document.skipped[1].message.contains("remote feed"))
    }

    @Test func linksThatAreNotWebLinksAreDropped() throws {
        let document = try read(
            """
            {"version": "https://jsonfeed.org/version/1", "items": [
              {"id": "a", "image": "https://x.example/a.jpg", "url": "javascript:alert(1)"}]}
            """
        )
        #expect(document.photos.count == 1)
        #expect(document.photos[0].link == nil)
    }

    @Test func readsAFolderWithAlbumsInNameOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-folder-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in ["b_beach.jpg", "a-lake.png", "notes.txt", ".hidden.jpg", "Trips/z.webp", "Trips/y.JPG"] {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
        }
        let document = try FeedReader().document(fromFolder: folder)
        #expect(document.photos.map(\.title) == ["a lake", "b beach", "y", "z"])
        #expect(document.photos.map(\.album) == [nil, nil, "Trips", "Trips"])
        #expect(document.photos.map(\.index) == [0, 1, 2, 3])
    }

    /// A photographer's tree (issue 10): years, trips inside them, camera file names.
    @Test func readsNestedFoldersAsNestedAlbumsWithCleanTitles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-tree-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = [
            "cover.jpg", "2019/_MG_7805_lossy80.webp", "2019/Iceland/DSC-0001.JPG", "2019/Iceland/Day 2/ice.png",
            "2020/accentué/été.jpg", "2020/.cache/hidden.jpg", "2020/notes/readme.txt",
        ]
        for path in paths {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
        }
        // A link back up the tree is read once, not forever.
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("2020/loop"), withDestinationURL: folder)

        let document = try FeedReader().document(fromFolder: folder)

        #expect(
            document.photos.map(\.id) == [
                "cover.jpg", "2019/_MG_7805_lossy80.webp", "2019/Iceland/DSC-0001.JPG", "2019/Iceland/Day 2/ice.png",
                "2020/accentué/été.jpg",
            ])
        #expect(
            document.photos.map(\.album) == [
                nil, "2019", "2019 / Iceland", "2019 / Iceland / Day 2", "2020 / accentué",
            ])
        #expect(document.photos.map(\.title) == ["cover", "MG 7805 lossy80", "DSC 0001", "ice", "été"])
        #expect(document.photos.map(\.index) == [0, 1, 2, 3, 4])
        #expect(document.skipped.isEmpty)
    }
}
