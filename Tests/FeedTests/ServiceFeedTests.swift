import Foundation
import GalleryCore
import Testing

@testable import Feed

/// Saved answers of photo services' APIs (Fixtures/README.md says where each came from), read as
/// feeds: which entries are photos, and what each field fills.
@Suite struct ServiceFeedTests {
    /// The saved answer `name` read as if fetched from `location`.
    static func read(_ name: String, from location: String, format: FeedFormat = .auto, largestWidth: Int = 1600)
        throws -> FeedDocument
    {
        let data = try Data(contentsOf: SavedMediaFeedTests.fixtures.appendingPathComponent(name))
        return try FeedReader(configuration: FeedReader.Configuration(format: format, largestWidth: largestWidth))
            .document(from: data, location: URL(string: location)!, name: name)
    }

    func read(_ name: String, from location: String, format: FeedFormat = .auto) throws -> FeedDocument {
        try Self.read(name, from: location, format: format)
    }

    /// The saved status (unlisted, marked sensitive, no content warning), with its visibility,
    /// its `sensitive` flag and its content warning as given.
    static func status(visibility: String? = nil, sensitive: Bool = false, warning: String = "") throws -> String {
        var status = try String(
            contentsOf: SavedMediaFeedTests.fixtures.appendingPathComponent("mastodon-api-status-two-images.json"),
            encoding: .utf8)
        #expect(status.contains(#""visibility":"unlisted""#) && status.contains(#""sensitive":true"#))
        status = status.replacingOccurrences(
            of: #""visibility":"unlisted","#, with: visibility.map { #""visibility":"\#($0)","# } ?? "")
        status = status.replacingOccurrences(of: #""sensitive":true"#, with: #""sensitive":\#(sensitive)"#)
        return status.replacingOccurrences(of: #""spoiler_text":"""#, with: #""spoiler_text":"\#(warning)""#)
    }

    static func statuses(
        _ statuses: [String], visibility: PostVisibility = .public, sensitive: SensitivePosts = .leaveOut
    ) throws -> FeedDocument {
        try FeedReader(configuration: FeedReader.Configuration(visibility: visibility, sensitive: sensitive)).document(
            from: Data(("[" + statuses.joined(separator: ",") + "]").utf8),
            location: URL(string: "http://localhost:3000/api/v1/accounts/1/statuses")!, name: "statuses")
    }

    @Test func aMastodonStatusWithTwoImagesIsTwoPhotosWithTheAuthorsAltText() throws {
        // The saved status, as an account's statuses list holds it, made public and not sensitive.
        let data = Data(("[" + (try Self.status(visibility: "public")) + "]").utf8)
        let document = try FeedReader().document(
            from: data, location: URL(string: "http://localhost:3000/api/v1/accounts/1/statuses")!, name: "statuses")
        #expect(document.photos.count == 2 && document.skipped.isEmpty)
        let first = try #require(document.photos.first)
        #expect(
            first.source.absoluteString
                == "http://localhost:3000/system/media_attachments/files/117/020/576/646/493/592/original/963111bc1b0bd6b6.jpg"
        )
        #expect(first.metadata.alt == "John Lennon doing a funny walk")
        #expect(first.metadata.description == "LOL check this out")
        #expect(first.title == "LOL check this out")
        #expect(first.metadata.creator == "John Lennon")
        #expect(first.link?.absoluteString == "http://localhost:3000/@mastodonpy_test/117020576664345360")
        #expect(first.date == FeedDate.parse("2026-08-01T13:51:35.294Z"))
        #expect(first.id == "117020576646493592")
        #expect(document.photos[1].metadata.alt == "hololives #1 detective, watson ameliachan")
        #expect(FeedReader().shapeNameIfReadable(data) == "Mastodon or Pixelfed statuses")
    }

    /// Read with the owner's token, an account answers its followers-only and direct posts too:
    /// never published. Unlisted ones only when the owner says so; sensitive ones and those
    /// behind a content warning not at all.
    @Test func onlyThePostsTheOwnerMeantToPublish() throws {
        let all = [
            try Self.status(visibility: "public"), try Self.status(visibility: "unlisted"),
            try Self.status(visibility: "private"), try Self.status(visibility: "direct"),
            try Self.status(visibility: "limited"), try Self.status(visibility: nil),
            try Self.status(visibility: "public", sensitive: true),
            try Self.status(visibility: "public", warning: "eye strain"),
            try Self.status(visibility: "unlisted", sensitive: true),
        ]
        let publicOnly = try Self.statuses(all)
        #expect(publicOnly.photos.count == 2, "the public post's two images")
        #expect(
            publicOnly.postsLeftOut == [
                "unlisted": 2, "followers-only": 1, "direct": 1, "limited": 1, "without a visibility": 1,
                "sensitive": 2,
            ])
        let unlisted = try Self.statuses(all, visibility: .unlisted)
        #expect(unlisted.photos.count == 4, "the public and the unlisted post's")
        #expect(unlisted.postsLeftOut["followers-only"] == 1 && unlisted.postsLeftOut["direct"] == 1)
        #expect(unlisted.postsLeftOut["sensitive"] == 3 && unlisted.postsLeftOut["unlisted"] == nil)
        // The saved status as it came (unlisted, marked sensitive): not published either way.
        let saved =
            "["
            + (try String(
                contentsOf: SavedMediaFeedTests.fixtures.appendingPathComponent("mastodon-api-status-two-images.json"),
                encoding: .utf8)) + "]"
        for visibility in PostVisibility.allCases {
            let document = try FeedReader(configuration: FeedReader.Configuration(visibility: visibility)).document(
                from: Data(saved.utf8), location: URL(string: "http://localhost:3000/")!, name: "statuses")
            #expect(document.photos.isEmpty && document.postsLeftOut.values.reduce(0, +) == 1)
        }
    }

    /// Asked for (`feed.sensitive: behind_warning`), a sensitive post is published behind its
    /// warning: its words, or none when it is only marked sensitive. Nothing else changes: a
    /// followers-only or direct post stays out, sensitive or not.
    @Test func sensitivePostsBehindTheirWarningWhenTheOwnerAsks() throws {
        let all = [
            try Self.status(visibility: "public"),
            try Self.status(visibility: "public", sensitive: true),
            try Self.status(visibility: "public", sensitive: true, warning: " eye strain\\u0007 "),
            try Self.status(visibility: "unlisted", warning: "spiders"),
            try Self.status(visibility: "private", sensitive: true, warning: "eye strain"),
            try Self.status(visibility: "direct", sensitive: true),
        ]
        let document = try Self.statuses(all, sensitive: .behindWarning)
        #expect(document.photos.map(\.contentWarning) == [nil, nil, "", "", "eye strain", "eye strain"])
        #expect(document.postsLeftOut == ["unlisted": 1, "followers-only": 1, "direct": 1])
        let unlisted = try Self.statuses(all, visibility: .unlisted, sensitive: .behindWarning)
        #expect(
            unlisted.photos.compactMap(\.contentWarning) == ["", "", "eye strain", "eye strain", "spiders", "spiders"])
        // What the warning keeps back is still read: the page shows it once asked.
        #expect(document.photos[4].metadata.alt == "John Lennon doing a funny walk")
        // By default they stay out.
        let byDefault = try Self.statuses(all)
        #expect(byDefault.photos.count == 2 && byDefault.photos.allSatisfy { $0.contentWarning == nil })
        #expect(byDefault.postsLeftOut["sensitive"] == 2)
    }

    /// A list feed says which photo is behind a warning with `contentWarning`.
    @Test func aListEntryNamesItsContentWarning() throws {
        let json = #"""
            [{"imageUrl": "https://cdn.example.com/a.jpg", "contentWarning": "spiders"},
             {"imageUrl": "https://cdn.example.com/b.jpg", "contentWarning": ""},
             {"imageUrl": "https://cdn.example.com/c.jpg", "contentWarning": true},
             {"imageUrl": "https://cdn.example.com/d.jpg"}]
            """#
        let document = try FeedReader().document(
            from: Data(json.utf8), location: URL(string: "https://example.com/feed.json")!, name: "feed.json")
        #expect(document.photos.map(\.contentWarning) == ["spiders", "", nil, nil])
    }

    @Test func aMastodonPageOfTextOnlyStatusesHasNoPhotoAndSkipsNone() throws {
        let document = try read(
            "mastodon-api-account-statuses.json",
            from: "http://localhost:3000/api/v1/accounts/117020565966271181/statuses?limit=5", format: .mastodon)
        #expect(document.photos.isEmpty && document.skipped.isEmpty)
        #expect(document.next == nil, "Mastodon's next page is in the Link header, which the pager reads")
    }

    @Test func aPiwigoAlbumPageAndItsNextPage() throws {
        let document = try read(
            "piwigo-categories-getImages.json",
            from: "http://10.100.230.78/ws.php?format=json&method=pwg.categories.getImages&cat_id=4&per_page=2&page=2")
        #expect(document.photos.count == 2)
        let first = try #require(document.photos.first)
        #expect(first.source.absoluteString == "http://10.100.230.78/upload/2019/11/07/20191107154824-70af44c1.jpg")
        #expect(first.title == "pulirmen1" && first.id == "39")
        #expect(first.link?.absoluteString == "http://10.100.230.78/picture.php?/39")
        #expect(first.metadata.taken == CaptureTime.parse("2001-03-20T15:01:27"))
        #expect(first.metadata.description == nil, "a null comment says nothing")
        #expect(document.photos[1].title == "quebec city in snow 3")
        // Page 2 of 29 photos, 2 a page: page 3 next.
        #expect(
            document.next?.absoluteString
                == "http://10.100.230.78/ws.php?format=json&method=pwg.categories.getImages&cat_id=4&per_page=2&page=3")
    }

    @Test func aPiwigoErrorIsNamed() throws {
        let data = Data(#"{"stat":"fail","err":1002,"message":"Missing parameters: cat_id"}"#.utf8)
        let error = #expect(throws: FeedError.self) {
            try FeedReader(configuration: FeedReader.Configuration(format: .piwigo)).document(
                from: data, location: URL(string: "https://p.example/ws.php")!, name: "ws.php")
        }
        #expect(error?.message.contains("Piwigo answered \"Missing parameters: cat_id\"") == true)
    }
}

extension FeedReader {
    func shapeNameIfReadable(_ data: Data) -> String? { try? shapeName(of: data, name: "feed") }
}

/// Hostile answers from the listing and paging sources: no entity read, wrong types named.
@Suite struct HostileListingTests {
    @Test func aBucketListingOrAWebDAVAnswerWithADocumentTypeIsRefused() throws {
        let xxe = Data(
            """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Contents><Key>&x;.jpg</Key></Contents></ListBucketResult>
            """.utf8)
        let listing = #expect(throws: FeedError.self) {
            try FeedReader().document(
                from: xxe, location: URL(string: "https://b.s3.example/?list-type=2")!, name: "listing")
        }
        #expect(listing?.location?.line == 2 && listing?.code == .invalidXML)
        let dav = Data(
            """
            <?xml version="1.0"?>
            <!DOCTYPE d:multistatus [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <d:multistatus xmlns:d="DAV:"><d:response><d:href>/x/&b;.jpg</d:href></d:response></d:multistatus>
            """.utf8)
        let folder = URL(string: "https://dav.example/x/")!
        let error = #expect(throws: FeedError.self) {
            try WebDAVListing(data: dav, folder: folder, root: folder, name: "folder")
        }
        #expect(error?.code == .invalidXML)
    }

    @Test func aWebDAVListingCannotLeadTheWalkOutsideTheFeedsFolder() throws {
        let answer = Data(
            """
            <d:multistatus xmlns:d="DAV:">
            <d:response><d:href>/share/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/a.jpg</d:href><d:propstat><d:prop><d:resourcetype/><d:getetag>"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/private/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>https://elsewhere.example/share/b.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/../private/c.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/%2E%2E/private/e.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/..;/private/g.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/..;jsessionid=1/private/h.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/%2e%2e%3b/private/i.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>https://dav.example:443/share/d.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/share/a b.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>http://[bad/share/f.jpg</d:href><d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            </d:multistatus>
            """.utf8)
        let folder = URL(string: "https://dav.example/share/")!
        let listing = try WebDAVListing(data: answer, folder: folder, root: folder, name: "share")
        // A raw space is taken as Foundation takes it (encoded); the default port written out is
        // the same origin.
        #expect(listing.files.map(\.name) == ["a b.jpg", "a.jpg", "d.jpg"], "\(listing.files.map(\.name))")
        #expect(listing.files.first { $0.name == "a.jpg" }?.etag == "\"1\"")
        #expect(listing.folders.isEmpty)
        // Another host, a folder outside, `..` written and encoded, `..;` (a step out on Tomcat
        // and Jetty) written and encoded, and an href that is no URL.
        #expect(listing.outside.count == 8, "\(listing.outside)")
    }

    @Test func aNextFieldOfTheWrongTypeIsNamed() throws {
        var configuration = FeedReader.Configuration(fields: FieldMapping(items: "data", image: "url"))
        configuration.paging.next = "links.next"
        let data = Data(#"{"data": [{"url": "a.jpg"}], "links": {"next": {"href": "?page=2"}}}"#.utf8)
        let error = #expect(throws: FeedError.self) {
            try FeedReader(configuration: configuration).document(
                from: data, location: URL(string: "https://api.example/photos")!, name: "photos")
        }
        #expect(error?.message.contains("\"links.next\", where the next page is, is neither text nor a number") == true)
    }
}
