import Feed
import Foundation
import GalleryCore
import Loading
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

/// Feeds of many pages read over HTTP: every way a page names the next one, the limits that keep
/// a feed paging forever from hanging the build, and the cost of a rebuild when nothing changed.
@Suite struct FeedPagesTests {
    /// A host of `pages` pages of `perPage` entries each at `/feed?page=N` (the first page also at
    /// `/feed`), and `/photos/N.jpg` (photo N is picture N modulo `pictures`), every answer with
    /// an ETag and a 304 for it. `page` writes page N's body and headers given its entries.
    final class PagedHost: Sendable {
        let server: TestHTTPServer

        init(
            pages: Int, perPage: Int, pictures: Int = 1_000_000,
            number pageNumber: @escaping @Sendable (TestHTTPServer.Request) -> Int = PagedHost.pageParameter,
            page:
                @escaping @Sendable (_ number: Int, _ entries: [String], _ base: String) -> (String, [(String, String)])
        ) async throws {
            let base = Locked<String>("")
            server = try await TestHTTPServer { request in
                let baseURL = base.value ?? ""
                if request.path.hasPrefix("/photos/") {
                    let number = Int(request.path.dropFirst("/photos/".count).prefix { $0.isNumber }) ?? 0
                    return .revalidating(request, photo: (number - 1) % pictures + 1)
                }
                guard request.path == "/feed" else { return .text(404) }
                let number = pageNumber(request)
                let entries: [String] =
                    number <= pages
                    ? (0..<perPage).map { offset in
                        let photo = (number - 1) * perPage + offset + 1
                        return
                            #"{"id": "p\#(photo)", "title": "Photo \#(photo)", "url": "\#(baseURL)/photos/\#(photo).jpg"}"#
                    } : []
                let (body, headers) = page(number, entries, baseURL)
                let etag = "\"page-\(number)-\(body.utf8.count)\""
                if request.headers["if-none-match"] == etag { return .init(status: 304, headers: [("ETag", etag)]) }
                return .init(
                    headers: [("Content-Type", "application/json"), ("ETag", etag)] + headers, body: Array(body.utf8))
            }
            base.set(server.baseURL)
        }

        /// The number after `page=` in the query; 1 without one.
        static func pageParameter(_ request: TestHTTPServer.Request) -> Int {
            let query = request.uri.drop { $0 != "?" }
            guard let item = query.dropFirst().split(separator: "&").first(where: { $0.hasPrefix("page=") }) else {
                return 1
            }
            return Int(item.dropFirst("page=".count)) ?? 1
        }

        var feedURL: String { server.baseURL + "/feed" }
        var pageRequests: [TestHTTPServer.Request] { server.requests.filter { $0.path == "/feed" } }
        var photoRequests: [TestHTTPServer.Request] { server.requests.filter { $0.path.hasPrefix("/photos/") } }
    }

    func build(_ site: FixtureSite, _ options: BuildOptions = BuildOptions()) async throws -> BuildResult {
        try await SiteBuilder(siteDirectory: site.url, options: options).build()
    }

    /// JSON Feed pages: `items` with `image`, and `next_url` on every page but the last.
    static func jsonFeedPage(pages: Int) -> @Sendable (Int, [String], String) -> (String, [(String, String)]) {
        { number, entries, base in
            let items = entries.map { $0.replacingOccurrences(of: #""url""#, with: #""image""#) }
            let next = number < pages ? #", "next_url": "\#(base)/feed?page=\#(number + 1)""# : ""
            return (
                #"{"version": "https://jsonfeed.org/version/1.1", "title": "Paged", "items": ["#
                    + items.joined(separator: ",") + "]" + next + "}", []
            )
        }
    }

    @Test func aJSONFeedIsReadPageByPageByItsNextURL() async throws {
        let host = try await PagedHost(pages: 3, perPage: 4, page: Self.jsonFeedPage(pages: 3))
        let site = try FixtureSite(feed: host.feedURL, title: "Paged")

        let result = try await build(site)

        #expect(result.report.counts.photos == 12 && result.report.counts.failed == 0)
        #expect(host.pageRequests.map(\.uri) == ["/feed", "/feed?page=2", "/feed?page=3"])
        let index = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(index.contains("Photo 12") || result.report.counts.pagesRendered > 1)
        try await host.server.shutdown()
    }

    /// 5,000 entries over 50 pages (100 pictures, each named by 50 entries): the rebuild that
    /// finds nothing changed sends one conditional request a page, each answered 304, and no
    /// image comes with a body.
    @Test func aFeedOf5000EntriesOver50PagesThatDidNotChangeCostsOne304APage() async throws {
        let host = try await PagedHost(pages: 50, perPage: 100, pictures: 100) { number, entries, base in
            // The next page only in the Link header, which the 304 does not repeat.
            let next = number < 50 ? [("Link", "<\(base)/feed?page=\(number + 1)>; rel=\"next\"")] : []
            return ("[" + entries.joined(separator: ",") + "]", next)
        }
        let site = try FixtureSite(feed: host.feedURL, title: "Paged")
        try site.folder.write(
            """
            title: Paged
            feed:
              url: \(host.feedURL)
              fields: {image: url, title: title, id: id}
            images:
              widths: [48]
              formats: [jpeg]
            page_size: 500
            """, to: "gallery.yml")
        let first = try await build(site)
        #expect(first.report.counts.photos == 5000 && first.report.counts.failed == 0)
        #expect(host.pageRequests.count == 50)
        host.server.resetCounts()

        let again = try await build(site)

        #expect(again.report.counts.photos == 5000)
        #expect(host.pageRequests.count == 50, "one request a page")
        #expect(host.pageRequests.allSatisfy { $0.isConditional })
        #expect(again.report.counts.requests == 5050, "50 pages and 5,000 image URLs, each asked once")
        #expect(again.report.counts.notModified == 5000 && again.report.counts.downloaded == 0)
        #expect(again.report.counts.bytesTransferred == 0, "no body: every page and every image a 304")
        #expect(again.report.counts.processed == 0 && again.report.counts.filesWritten == 0)
        try await host.server.shutdown()
    }

    @Test func aCursorInTheBodyIsSentBackInItsParameter() async throws {
        let host = try await PagedHost(
            pages: 3, perPage: 2,
            number: { request in
                guard let range = request.uri.range(of: "after=c") else { return 1 }
                return Int(request.uri[range.upperBound...].prefix { $0.isNumber }) ?? 1
            },
            page: { number, entries, _ in
                // A base64-like cursor with a `+`, which must reach the server as %2B.
                let cursor = number < 3 ? #""c\#(number + 1)+x""# : "null"
                return (#"{"data": [\#(entries.joined(separator: ","))], "meta": {"cursor": \#(cursor)}}"#, [])
            })
        let site = try FixtureSite(feed: host.feedURL, title: "Cursor")
        try site.folder.write(
            """
            title: Cursor
            feed:
              url: \(host.feedURL)
              fields: {items: data, image: url, title: title, id: id}
              paging: {next: meta.cursor, cursor_parameter: after}
            images:
              widths: [48]
            """, to: "gallery.yml")

        let result = try await build(site)

        #expect(result.report.counts.photos == 6 && result.report.counts.failed == 0)
        #expect(host.pageRequests.map(\.uri) == ["/feed", "/feed?after=c2%2Bx", "/feed?after=c3%2Bx"])
        try await host.server.shutdown()
    }

    @Test func numberedPagesEndAtTheFirstEmptyOne() async throws {
        let host = try await PagedHost(pages: 3, perPage: 2) { _, entries, _ in
            ("[" + entries.joined(separator: ",") + "]", [])
        }
        let site = try FixtureSite(feed: host.feedURL, title: "Numbered")
        try site.folder.write(
            """
            title: Numbered
            feed:
              url: \(host.feedURL)?per_page=2
              fields: {image: url, title: title, id: id}
              paging: {page_parameter: page}
            images:
              widths: [48]
            """, to: "gallery.yml")

        let result = try await build(site)

        #expect(result.report.counts.photos == 6)
        #expect(
            host.pageRequests.map(\.uri) == [
                "/feed?per_page=2&page=1", "/feed?per_page=2&page=2", "/feed?per_page=2&page=3",
                "/feed?per_page=2&page=4",
            ])
        try await host.server.shutdown()
    }

    @Test func anAtomFeedFollowsItsNextLink() async throws {
        let host = try await PagedHost(pages: 2, perPage: 2) { number, entries, base in
            let items = entries.enumerated().map { offset, _ in
                let photo = (number - 1) * 2 + offset + 1
                return """
                    <entry><id>urn:p\(photo)</id><title>Photo \(photo)</title>
                    <link rel="enclosure" type="image/jpeg" href="\(base)/photos/\(photo).jpg"/></entry>
                    """
            }
            let next = number < 2 ? #"<link rel="next" href="/feed?page=\#(number + 1)"/>"# : ""
            return (
                #"<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom</title>\#(next)"#
                    + items.joined() + "</feed>", []
            )
        }
        let site = try FixtureSite(feed: host.feedURL, title: "Atom")

        let result = try await build(site)

        #expect(result.report.counts.photos == 4 && result.report.counts.failed == 0)
        #expect(host.pageRequests.map(\.uri) == ["/feed", "/feed?page=2"])
        try await host.server.shutdown()
    }

    @Test func aFeedThatPagesForeverIsAnErrorNamingThePage() async throws {
        // Every page names one more: max_pages ends it.
        let endless = try await PagedHost(pages: 1_000_000, perPage: 1) { number, entries, base in
            ("[" + entries.joined(separator: ",") + "]", [("Link", "<\(base)/feed?page=\(number + 1)>; rel=next")])
        }
        let site = try FixtureSite(feed: endless.feedURL, title: "Endless")
        try site.folder.write(
            """
            title: Endless
            feed:
              url: \(endless.feedURL)
              fields: {image: url, title: title, id: id}
              paging: {max_pages: 5}
            """, to: "gallery.yml")
        let error = await #expect(throws: BuildError.self) { try await build(site) }
        #expect(error?.code == .feed)
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("/feed?page=5: page 5 of the feed names a next page"), "\(message)")
        #expect(message.contains("max_pages (5)"), "\(message)")
        #expect(endless.pageRequests.count == 5)
        #expect(
            !FileManager.default.fileExists(atPath: site.folder.file("public/index.html").path),
            "no site from part of a feed")

        // Too many entries, over all the pages.
        try site.folder.write(
            """
            title: Endless
            feed:
              url: \(endless.feedURL)
              fields: {image: url, title: title, id: id}
              paging: {max_entries: 3}
            """, to: "gallery.yml")
        let tooMany = await #expect(throws: BuildError.self) { try await build(site) }
        #expect(
            "\(tooMany.map { "\($0)" } ?? "")".contains(
                "page 4 brings the feed to 4 entries, over feed.paging.max_entries (3)"))
        try await endless.server.shutdown()

        // A next link back to an earlier page.
        let circle = try await PagedHost(pages: 3, perPage: 1) { number, entries, base in
            let next = number == 3 ? "\(base)/feed?page=2" : "\(base)/feed?page=\(number + 1)"
            return ("[" + entries.joined(separator: ",") + "]", [("Link", "<\(next)>; rel=\"next\"")])
        }
        try site.folder.write(
            """
            title: Circle
            feed:
              url: \(circle.feedURL)
              fields: {image: url, title: title, id: id}
            """, to: "gallery.yml")
        let round = await #expect(throws: BuildError.self) { try await build(site) }
        #expect("\(round.map { "\($0)" } ?? "")".contains("page 4 of the feed is page 2 again"))
        try await circle.server.shutdown()
    }

    @Test func aHugePageIsStoppedAtMaxImageBytesAndNamed() async throws {
        let host = try await PagedHost(pages: 2, perPage: 1) { number, entries, base in
            // Page 2 is 2 MB of entries, over a limit of 1 MB.
            let padding = number == 2 ? String(repeating: " ", count: 2_000_000) : ""
            return (
                "[" + entries.joined(separator: ",") + padding + "]",
                number == 1 ? [("Link", "<\(base)/feed?page=2>; rel=next")] : []
            )
        }
        let site = try FixtureSite(feed: host.feedURL, title: "Huge")
        try site.folder.write(
            """
            title: Huge
            feed:
              url: \(host.feedURL)
              fields: {image: url, title: title, id: id}
            max_image_bytes: 1MB
            """, to: "gallery.yml")
        let error = await #expect(throws: BuildError.self) { try await build(site) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("/feed?page=2") && message.contains("max_image_bytes"), "\(message)")
        try await host.server.shutdown()
    }

    @Test func aFeedPageAnswered429IsAskedAgainAfterRetryAfter() async throws {
        let asked = Locked<Int>(0)
        let server = try await TestHTTPServer { request in
            if request.path.hasPrefix("/photos/") { return .photo(1) }
            let count = (asked.value ?? 0) + 1
            asked.set(count)
            if count == 1 { return .init(status: 429, headers: [("Retry-After", "1")]) }
            return .init(
                headers: [("Content-Type", "application/json")],
                body: Array(#"[{"title": "One", "imageUrl": "/photos/1.jpg"}]"#.utf8))
        }
        let site = try FixtureSite(feed: server.baseURL + "/feed", title: "Busy")
        let clock = ContinuousClock()
        let start = clock.now

        let result = try await build(site)

        #expect(result.report.counts.photos == 1 && result.report.counts.failed == 0)
        #expect(server.requests.filter { $0.path == "/feed" }.count == 2)
        #expect(clock.now - start >= .seconds(1), "the server's Retry-After was waited out")
        try await server.shutdown()
    }

    /// A Mastodon account's statuses, page by page as Mastodon sends them: the saved first page
    /// (five text-only statuses) with its recorded Link header, and a second page holding the
    /// saved status with two images (Fixtures/README.md in FeedTests), the addresses in both made
    /// the test server's.
    /// The saved Mastodon answers (FeedTests' fixtures), by name.
    static func mastodonAnswer(_ name: String) throws -> String {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FeedTests/Fixtures")
        return try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    /// A Mastodon server: the saved status's two photos at their paths, and what `statuses`
    /// answers, given the server's own address, to every other request.
    static func mastodonServer(
        _ statuses: @escaping @Sendable (TestHTTPServer.Request, _ here: String) -> TestHTTPServer.Response
    ) async throws -> TestHTTPServer {
        let base = Locked<String>("")
        let server = try await TestHTTPServer { request in
            if request.path.hasPrefix("/system/media_attachments/") {
                return .revalidating(request, photo: request.path.contains("963111bc") ? 1 : 2)
            }
            return statuses(request, base.value ?? "")
        }
        base.set(server.baseURL)
        return server
    }

    @Test func aMastodonAccountIsReadPageByPageByItsLinkHeader() async throws {
        let firstPage = try Self.mastodonAnswer("mastodon-api-account-statuses.json")
        // The saved status is unlisted and marked sensitive (with no content warning): served as
        // a post the owner publishes, unlisted and not sensitive.
        let status = try Self.mastodonAnswer("mastodon-api-status-two-images.json")
            .replacingOccurrences(of: #""sensitive":true"#, with: #""sensitive":false"#)
        let server = try await Self.mastodonServer { request, here in
            guard request.path == "/api/v1/accounts/117020565966271181/statuses" else { return .text(404) }
            let statuses = "/api/v1/accounts/117020565966271181/statuses"
            if request.uri.contains("max_id=117020580489281910") {
                return .init(
                    headers: [("Content-Type", "application/json; charset=utf-8")],
                    body: Array(("[" + status.replacingOccurrences(of: "http://localhost:3000", with: here) + "]").utf8)
                )
            }
            let link =
                "<\(here)\(statuses)?limit=5&max_id=117020580489281910>; rel=\"next\", "
                + "<\(here)\(statuses)?limit=5&min_id=117020580518794573>; rel=\"prev\""
            return .init(
                headers: [("Content-Type", "application/json; charset=utf-8"), ("Link", link)],
                body: Array(firstPage.replacingOccurrences(of: "http://localhost:3000", with: here).utf8))
        }
        let site = try FixtureSite(
            feed: server.baseURL + "/api/v1/accounts/117020565966271181/statuses?limit=5", title: "Toots")
        try site.folder.write(
            "title: Toots\nfeed:\n  url: \(server.baseURL)/api/v1/accounts/117020565966271181/statuses?limit=5\n"
                + "  visibility: unlisted\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")

        let result = try await build(site)

        #expect(result.report.counts.photos == 2 && result.report.counts.failed == 0, "\(result.report.counts)")
        #expect(server.requests.filter { $0.path.hasPrefix("/api/") }.count == 2)
        let page = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(page.contains("John Lennon doing a funny walk"), "the author's alt text")
        try await server.shutdown()
    }

    /// `feed.sensitive: behind_warning`: the saved status (unlisted, marked sensitive, no words)
    /// is published behind its warning; once it gains words, the next build shows them.
    @Test func aSensitivePostIsPublishedBehindItsWarningWhenAsked() async throws {
        let saved = try Self.mastodonAnswer("mastodon-api-status-two-images.json")
        let status = Locked<String>(saved)
        let server = try await Self.mastodonServer { request, here in
            guard request.path == "/api/v1/accounts/1/statuses" else { return .text(404) }
            let body = "[" + (status.value ?? "").replacingOccurrences(of: "http://localhost:3000", with: here) + "]"
            return .init(headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(body.utf8))
        }
        let site = try FixtureSite(feed: server.baseURL + "/api/v1/accounts/1/statuses", title: "Toots")
        try site.folder.write(
            "title: Toots\nfeed:\n  url: \(server.baseURL)/api/v1/accounts/1/statuses\n  visibility: unlisted\n"
                + "  sensitive: behind_warning\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")

        let result = try await build(site)
        #expect(result.report.counts.photos == 2 && result.report.counts.failed == 0, "\(result.report.counts)")
        #expect(!result.report.warnings.contains { $0.contains("left out") }, "\(result.report.warnings)")
        var page = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(page.components(separatedBy: #"<b>Content warning</b> Sensitive content</span>"#).count == 3)
        #expect(!page.contains("data-full="), "neither opens in the viewer")
        let pages = try FileManager.default.contentsOfDirectory(atPath: site.folder.file("public/photos").path)
        #expect(pages.sorted() == ["photo-117020576646493592.html", "photo-117020576661238952.html"])

        status.set(saved.replacingOccurrences(of: #""spoiler_text":"""#, with: #""spoiler_text":"silly walks""#))
        _ = try await build(site)
        page = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(page.components(separatedBy: #"<b>Content warning</b> silly walks</span>"#).count == 3)
        try await server.shutdown()
    }

    /// The posts a service's feed held and the site leaves out, said in one line.
    @Test func thePostsLeftOutAreOneWarning() {
        #expect(BuildSession.postsLeftOutWarning([:]) == nil)
        #expect(
            BuildSession.postsLeftOutWarning(["followers-only": 3, "sensitive": 1, "unlisted": 2])
                == "feed: 6 posts with photos left out (followers-only and direct posts are never published): "
                + "3 followers-only, 2 unlisted, 1 marked sensitive or behind a content warning "
                + "(`feed.visibility: unlisted` publishes unlisted posts too; `feed.sensitive: behind_warning` "
                + "publishes sensitive posts behind their warning)")
    }

    @Test func aFlickrPhotoSetIsReadPageByPageWithTheExtrasItNeeds() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FeedTests/Fixtures")
        func answer(_ name: String) throws -> String {
            try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
        }
        // Page 1 of 5 of one album as Flickr answered it; the next page is served with another
        // recorded answer, which says it is the last (page 1 of 1).
        let pages = [
            "1": try answer("flickr-api-photosets-getPhotos-delhi-life-page1.xml"),
            "2": try answer("flickr-api-photosets-getPhotos-commons-explorer.xml"),
        ]
        let base = Locked<String>("")
        let server = try await TestHTTPServer { request in
            if request.path.hasPrefix("/static/") {
                return .revalidating(request, photo: request.path.count % 5 + 1)
            }
            guard request.path == "/services/rest/" else { return .text(404) }
            let page =
                URLComponents(string: "http://x" + request.uri)?.queryItems?.first { $0.name == "page" }?.value ?? "1"
            guard let body = pages[page] else { return .text(404) }
            return .init(
                headers: [("Content-Type", "text/xml; charset=utf-8")],
                body: Array(
                    body.replacingOccurrences(
                        of: "https://live.staticflickr.com/", with: (base.value ?? "") + "/static/"
                    ).utf8))
        }
        base.set(server.baseURL)
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Delhi\nfeed:\n  url: \(server.baseURL)/services/rest/?method=flickr.photosets.getPhotos&photoset_id=72157624715342071\n"
                + "  format: flickr\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")

        let result = try await build(site)

        #expect(result.report.counts.photos == 13 && result.report.counts.failed == 0, "\(result.report.counts)")
        let asked = server.requests.filter { $0.path == "/services/rest/" }.map(\.uri)
        #expect(asked.count == 2, "\(asked)")
        let first = try #require(asked.first)
        #expect(first.contains("extras=description%2Clicense%2Cdate_upload") && first.contains("per_page=500"))
        #expect(asked.last?.hasSuffix("&page=2") == true)
        let page = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(page.contains("Homepage of commons.flickr.org") && page.contains("Sit"))
        try await server.shutdown()
    }
}
