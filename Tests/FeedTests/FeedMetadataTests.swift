import Foundation
import Testing

@testable import Feed
@testable import GalleryCore

/// What a feed says about each photo besides its title, in each shape that carries it.
@Suite struct FeedMetadataTests {
    let remote = URL(string: "https://api.example.com/v1/feed.json")!

    func read(_ json: String, fields: FieldMapping? = nil) throws -> FeedDocument {
        let reader = FeedReader(configuration: .init(fields: fields, largestWidth: 1600))
        return try reader.document(from: Data(json.utf8), location: remote, name: "feed.json")
    }

    @Test func aMappedFeedNamesEveryField() throws {
        let fields = FieldMapping(
            items: "data", image: "media.large", title: "name", description: "text.caption", alt: "text.alt",
            keywords: "tags", taken: "exif.taken", creator: "by.name", rights: "legal.rights", licence: "legal.url")
        let document = try read(
            """
            {"data": [
              {"media": {"large": "https://cdn.example.com/a.jpg"}, "name": "Fjord",
               "text": {"caption": "Mist\\nover water", "alt": "A grey fjord"}, "tags": ["fjord", "mist"],
               "exif": {"taken": "2024-05-01T14:32:10+02:00"}, "by": {"name": "Ada"},
               "legal": {"rights": "© Ada", "url": "https://creativecommons.org/licenses/by/4.0/"}},
              {"media": {"large": "https://cdn.example.com/b.jpg"}, "tags": "one, two,,three",
               "legal": {"url": "javascript:alert(1)"}, "exif": {"taken": "not a date"}}
            ]}
            """, fields: fields)
        #expect(
            document.photos[0].metadata
                == PhotoMetadata(
                    description: "Mist\nover water", alt: "A grey fjord", keywords: ["fjord", "mist"],
                    taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"), creator: "Ada",
                    rights: "© Ada", licence: "https://creativecommons.org/licenses/by/4.0/"))
        // Words split by commas; a licence that is no web address and a date that is none are dropped.
        #expect(document.photos[1].metadata == PhotoMetadata(keywords: ["one", "two", "three"]))
    }

    @Test func aListFeedCarriesTheFieldsByTheirNames() throws {
        let document = try read(
            """
            [{"title": "Harbour", "imageUrl": "https://cdn.example.com/h.jpg", "description": "Boats",
              "keywords": ["harbour"], "taken": "2023:01:02 10:11:12", "creator": "Grace",
              "licence": "https://example.org/licence"}]
            """)
        let said = document.photos[0].metadata
        #expect(said.description == "Boats" && said.keywords == ["harbour"] && said.creator == "Grace")
        #expect(said.taken?.local == "2023-01-02T10:11:12")
        #expect(said.licence == "https://example.org/licence")
    }

    @Test func aListFeedNamesAlbumsInsideAlbumsAndIDsAndLinks() throws {
        let document = try read(
            """
            [{"title": "a", "imageUrl": "https://cdn.example.com/a.jpg", "album": "Garden / Flowers", "id": "f-1",
              "link": "https://example.org/a"},
             {"title": "b", "imageUrl": "https://cdn.example.com/b.jpg", "album": "7", "link": "javascript:x"}]
            """)
        #expect(document.photos.map(\.albumPath) == [["Garden", "Flowers"], ["7"]])
        #expect(document.photos.map(\.id) == ["f-1", "2"])
        #expect(document.photos.map(\.link?.absoluteString) == ["https://example.org/a", nil])
        // "Album N" is JSONPlaceholder's numeric id's, not a list's album named 7.
        #expect(document.albums.isEmpty)
        // An iTunes collection's name is one name, slash or not.
        let itunes = try read(
            """
            {"resultCount": 1, "results": [{"trackId": 1, "trackName": "t", "collectionName": "Live / Dead",
              "artworkUrl100": "https://cdn.example.com/a/100x100bb.jpg"}]}
            """)
        #expect(itunes.photos.map(\.albumPath) == [["Live / Dead"]])
    }

    @Test func anAlbumFoldersIndexSaysItsTitleTextCoverAndOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("albums-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = [
            "top.jpg", "Trip/a.jpg", "Trip/Day 2/b.jpg", "Other/c.jpg", "Broken/d.jpg", "Binary/e.jpg", "Plain/f.jpg",
        ]
        for path in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
        }
        func write(_ text: String, _ path: String) throws {
            try Data(text.utf8).write(to: root.appendingPathComponent(path))
        }
        try write("---\ntitle: A trip\ncover: Day 2/b.jpg\nsort: newest\n---\nThree *days* north.\n", "Trip/index.md")
        try write("---\ncover: ../top.jpg\nsort: sideways\ncolour: red\n---\n", "Other/index.md")
        try write("---\ntitle: [unclosed\n---\nStill read.\n", "Broken/index.md")
        try Data([0xFF, 0xFE, 0x00]).write(to: root.appendingPathComponent("Binary/index.md"))
        try write("Only a description.", "Plain/index.md")
        // The feed folder's own index.md is the site's business (its intro), not an album's.
        try write("---\ntitle: Not an album\n---\n", "index.md")

        let document = try FeedReader().document(fromFolder: root)
        #expect(
            document.albums[["Trip"]]
                == AlbumNote(
                    title: "A trip", descriptionMarkdown: "Three *days* north.", cover: "Trip/Day 2/b.jpg",
                    order: .newest))
        // A cover outside the album and an unknown order are warned about and dropped.
        #expect(document.albums[["Other"]] == nil)
        #expect(document.albums[["Broken"]] == AlbumNote(descriptionMarkdown: "Still read."))
        #expect(document.albums[["Binary"]] == nil)
        #expect(document.albums[["Plain"]] == AlbumNote(descriptionMarkdown: "Only a description."))
        #expect(document.albums[[]] == nil)
        let warnings = document.warnings.joined(separator: "\n")
        #expect(warnings.contains("Other/index.md: the cover \"../top.jpg\" is no photo of the album"), "\(warnings)")
        #expect(warnings.contains("Other/index.md: `sort` is \"sideways\"; use feed, name, oldest, newest"))
        #expect(warnings.contains("Other/index.md: unknown front matter key `colour`; use title, cover, sort"))
        #expect(warnings.contains("Broken/index.md: its front matter is not YAML"))
        #expect(warnings.contains("Binary/index.md: not UTF-8 text; not read"))
        // index.md is nobody's photo sidecar, and no photo.
        #expect(document.photos.map(\.id).sorted() == files.sorted())
    }

    @Test func jsonFeedAndITunesMapWhatTheyCarry() throws {
        let feed = try read(
            """
            {"version": "https://jsonfeed.org/version/1.1", "title": "Blog", "items": [
              {"id": "1", "title": "Ridge", "summary": "Above the clouds", "content_text": "A long walk up.",
               "image": "https://cdn.example.com/r.jpg", "tags": ["hills"], "authors": [{"name": "Ada"}]},
              {"id": "2", "summary": "Only a summary", "image": "https://cdn.example.com/s.jpg"}]}
            """)
        #expect(
            feed.photos[0].metadata
                == PhotoMetadata(description: "A long walk up.", keywords: ["hills"], creator: "Ada"))
        // A summary that stands in for the title is not its caption as well.
        #expect(feed.photos[1].title == "Only a summary" && feed.photos[1].metadata.description == nil)

        let iTunes = try read(
            """
            {"resultCount": 1, "results": [{"trackId": 1, "trackName": "Photo Journal",
              "artworkUrl100": "https://artwork.example.com/x/AppIcon-100x100bb.jpg", "artistName": "Studio",
              "copyright": "© 2024 Studio", "primaryGenreName": "Photo & Video", "description": "An app."}]}
            """)
        #expect(
            iTunes.photos[0].metadata
                == PhotoMetadata(
                    description: "An app.", keywords: ["Photo & Video"], creator: "Studio", rights: "© 2024 Studio"))
    }

    /// A sidecar that is a link out of the allowed folders is not read (it could publish any file
    /// of the build machine as a caption); front matter saved with Windows line breaks is read.
    @Test func sidecarsFollowTheFolderFeedsLinkRuleAndReadCRLF() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sidecars-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let secret = root.appendingPathComponent("secret.txt")
        try Data("the build machine's secret".utf8).write(to: secret)
        for name in ["a.jpg", "b.jpg"] { try Data("x".utf8).write(to: folder.appendingPathComponent(name)) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("a.txt"), withDestinationURL: secret)
        try Data("---\r\ntitle: Windows\r\nkeywords: [one, two]\r\n---\r\nA caption.\r\n".utf8)
            .write(to: folder.appendingPathComponent("b.md"))

        let document = try FeedReader().document(fromFolder: folder, allowedRoots: [folder])
        #expect(document.photos[0].metadata.description == nil)
        #expect(
            document.warnings.contains { $0.contains("a.txt: a symbolic link to a place outside") },
            "\(document.warnings)")
        #expect(
            document.photos[1].metadata.title == "Windows" && document.photos[1].metadata.keywords == ["one", "two"])
        #expect(document.photos[1].captionMarkdown == "A caption.")
        // Following links is the site's choice.
        let followed = try FeedReader().document(fromFolder: folder, allowedRoots: nil)
        #expect(followed.photos[0].metadata.description == "the build machine's secret")
    }
}
