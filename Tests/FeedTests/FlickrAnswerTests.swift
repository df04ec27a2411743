import Foundation
import GalleryCore
import Testing

@testable import Feed

/// Flickr's REST API answers, recorded from Flickr (Fixtures/README.md says where each came from),
/// read as feeds: which size each photo is loaded at, what each field fills, the next page.
@Suite struct FlickrAnswerTests {
    func read(_ name: String, from location: String, format: FeedFormat = .auto, largestWidth: Int = 1600) throws
        -> FeedDocument
    {
        try ServiceFeedTests.read(name, from: location, format: format, largestWidth: largestWidth)
    }

    static let setAddress =
        "https://api.flickr.com/services/rest/?method=flickr.photosets.getPhotos&photoset_id=72177720315673331&user_id=197130754@N07"

    @Test func aPhotoSetsPhotosCarryTheirDescriptionsTagsLicenceAndPage() throws {
        let document = try read("flickr-api-photosets-getPhotos-commons-explorer.xml", from: Self.setAddress)
        #expect(document.photos.count == 7 && document.skipped.isEmpty)
        #expect(document.title == "Flickr Commons Explorer")
        #expect(document.next == nil, "one page of one")
        let first = try #require(document.photos.first)
        // 2024 pixels wide is the first size as wide as 1600: the original.
        #expect(first.source.absoluteString == "https://live.staticflickr.com/65535/53610414731_f0727dbcf7_o.png")
        #expect(first.id == "53610414731" && first.title == "Homepage of commons.flickr.org")
        #expect(
            first.metadata.description
                == "On the homepage you can see some of the newest photographs, and a handful of our members.")
        #expect(first.metadata.keywords == ["screenshots"])
        #expect(first.metadata.creator == "Flickr Foundation")
        #expect(first.metadata.licence == "https://creativecommons.org/licenses/by/2.0/")
        #expect(first.link?.absoluteString == "https://www.flickr.com/photos/flickrfoundation/53610414731/")
        #expect(first.date == FeedDate.parse("2024-03-25T15:38:19Z"), "dateupload 1711381099")
        #expect(first.metadata.taken == nil, "Flickr marks when it was taken as unknown")
        let data = try Data(contentsOf: fixture("flickr-api-photosets-getPhotos-commons-explorer.xml"))
        #expect(FeedReader().shapeNameIfReadable(data) == "Flickr API")
    }

    @Test func theSmallestSizeAsWideAsTheSiteNeedsIsLoaded() throws {
        let document = try read(
            "flickr-api-photosets-getPhotos-commons-explorer.xml", from: Self.setAddress, largestWidth: 800)
        // url_l is 824 wide: enough for a site whose largest rendition is 800.
        #expect(
            document.photos.first?.source.absoluteString
                == "https://live.staticflickr.com/65535/53610414731_42e6a487f0_b.jpg")
    }

    @Test func clipsArePassedOverAndTheNextPageIsNumbered() throws {
        let address =
            "https://api.flickr.com/services/rest/?method=flickr.photosets.getPhotos&photoset_id=72157624715342071&user_id=91178292@N00&page=1"
        let document = try read("flickr-api-photosets-getPhotos-delhi-life-page1.xml", from: address)
        #expect(document.photos.count == 6, "four of the ten are videos, whose answer holds only their stills")
        #expect(document.entryCount == 10)
        #expect(document.next?.absoluteString == address.replacingOccurrences(of: "page=1", with: "page=2"))
        let sit = try #require(document.photos.first { $0.id == "4941540830" })
        #expect(sit.metadata.keywords == ["india", "market", "delhi", "0stars"])
        #expect(sit.metadata.taken == CaptureTime.parse("2010-08-28T13:08:01"))
        #expect(sit.metadata.creator == "Bram Pitoyo")
        #expect(sit.metadata.licence == nil, "licence 0 is all rights reserved")
        #expect(sit.source.absoluteString == "https://live.staticflickr.com/4141/4941540830_0d1a994712_o.jpg")
    }

    @Test func anAccountsPublicPhotosLinkToTheirOwnersPages() throws {
        let document = try read(
            "flickr-api-people-getPublicPhotos-page1.xml",
            from: "https://api.flickr.com/services/rest/?method=flickr.people.getPublicPhotos&user_id=34427469121@N01",
            format: .flickr)
        #expect(document.photos.count == 10)
        #expect(document.title == nil)
        let first = try #require(document.photos.first)
        #expect(first.title == "Guess where" && first.metadata.creator == "George Oates")
        #expect(first.metadata.description == nil, "an empty description says nothing")
        #expect(first.metadata.keywords.isEmpty)
        #expect(first.link?.absoluteString == "https://www.flickr.com/photos/george/53637883806/")
        #expect(document.photos[1].title == "Day Out: Maritime Museum & Lifeboats")
        #expect(document.next?.absoluteString.hasSuffix("&page=2") == true, "page 1 of 785")
    }

    @Test func theFirstPageAsksForTheExtrasReadAndFlickrsXML() {
        let given = URL(
            string:
                "https://api.flickr.com/services/rest/?method=flickr.photosets.getPhotos&photoset_id=1&format=json&nojsoncallback=1"
        )!
        let first = FeedReader().firstPage(given).absoluteString
        #expect(
            first.hasPrefix(
                "https://api.flickr.com/services/rest/?method=flickr.photosets.getPhotos&photoset_id=1&extras="))
        #expect(first.contains("url_o") && first.contains("date_taken") && first.contains("description"))
        #expect(first.hasSuffix("&per_page=500") && !first.contains("format=") && !first.contains("nojsoncallback"))
        // Extras already given are kept, the reader's added to them; a page size given is kept;
        // another host is another service.
        let chosen = URL(string: "https://api.flickr.com/services/rest/?method=m&extras=url_l,geo&per_page=50")!
        let merged = FeedReader().firstPage(chosen).absoluteString
        #expect(merged.hasPrefix("https://api.flickr.com/services/rest/?method=m&extras=url_l%2Cgeo%2Cdescription%2C"))
        #expect(merged.contains("realname") && merged.hasSuffix("&per_page=50"))
        #expect(
            !merged.contains(
                "url_l%2Cgeo%2Cdescription%2Clicense%2Cdate_upload%2Cdate_taken%2Cowner_name%2Crealname%2Ctags%2Cmedia%2Cpath_alias%2Curl_m%2Curl_z%2Curl_c%2Curl_l%2C"
            ), "url_l once")
        let elsewhere = URL(string: "https://example.com/services/rest/?method=m")!
        #expect(FeedReader().firstPage(elsewhere) == elsewhere)
        let named = FeedReader(configuration: FeedReader.Configuration(format: .flickr)).firstPage(elsewhere)
        #expect(named.absoluteString.contains("extras="))
        // What init writes of an address with its key in it: the rest as written.
        let keyed = URL(string: "https://api.flickr.com/services/rest/?method=m&api_key=K%2B1&user_id=1%40N0#x")!
        #expect(
            FeedPages.url(keyed, removing: ["api_key"]).absoluteString
                == "https://api.flickr.com/services/rest/?method=m&user_id=1%40N0#x")
        #expect(
            FeedPages.url(URL(string: "https://h.example/p?api_key=K")!, removing: ["api_key"]).absoluteString
                == "https://h.example/p")
        #expect(FeedPages.url(elsewhere, removing: ["api_key"]) == elsewhere)
        let mapped = FeedReader(
            configuration: FeedReader.Configuration(fields: FieldMapping(items: "photoset.photo", image: "url_o")))
        #expect(mapped.firstPage(given) == given, "a feed read by feed.fields is asked for as written")
    }

    @Test func flickrsRefusalIsNamedWithItsCode() throws {
        let data = Data(
            """
            <?xml version="1.0" encoding="utf-8" ?>
            <rsp stat="fail">
            \t<err code="1" msg="Photoset not found" />
            </rsp>
            """.utf8)
        let error = #expect(throws: FeedError.self) {
            try FeedReader().document(from: data, location: URL(string: Self.setAddress)!, name: "set")
        }
        #expect(error?.message == "set: Flickr answered \"Photoset not found\" (code 1)")
        let rss = try Data(contentsOf: fixture("flickr-user-herval-2010.rss"))
        let wrong = #expect(throws: FeedError.self) {
            try FeedReader(configuration: FeedReader.Configuration(format: .flickr)).document(
                from: rss, location: URL(string: Self.setAddress)!, name: "set")
        }
        #expect(wrong?.message.contains("feed.format is flickr, but this is not an answer of Flickr's API") == true)
    }

    @Test func hostileNumbersAndAddressesAreNotFollowed() throws {
        let data = Data(
            """
            <rsp stat="ok"><photos page="\(Int.max)" pages="\(Int.max)">
            <photo id="1" title="a" url_o="https://x.example/a.jpg" width_o="nine" owner="../../evil" />
            <photo id="2" title="b" />
            </photos></rsp>
            """.utf8)
        let document = try FeedReader().document(
            from: data, location: URL(string: Self.setAddress)!, name: "set")
        #expect(document.next == nil)
        #expect(document.photos.count == 1 && document.entryCount == 2 && document.skipped.count == 1)
        #expect(document.photos.first?.link == nil, "an owner that is no Flickr id makes no link")
    }

    /// Flickr sends an extra's attributes only when asked for it: with every attribute the
    /// reader's extras do not ask for taken out of a recorded answer, it reads the same.
    @Test func everyAttributeReadIsOneTheFirstPageAsksFor() throws {
        let sizes = ["sq", "t", "s", "q", "m", "n", "w", "z", "c", "l", "h", "k", "3k", "4k", "f", "5k", "6k", "o"]
        var byExtra: [String: [String]] = [
            "license": ["license"], "date_upload": ["dateupload"],
            "date_taken": ["datetaken", "datetakengranularity", "datetakenunknown"], "owner_name": ["ownername"],
            "realname": ["realname"], "tags": ["tags"], "media": ["media", "media_status"],
            "path_alias": ["pathalias"],
        ]
        for size in sizes { byExtra["url_\(size)"] = ["url_\(size)", "width_\(size)", "height_\(size)"] }
        let always: Set = [
            "id", "owner", "secret", "server", "farm", "title", "ispublic", "isfriend", "isfamily", "isprimary",
        ]
        let asked = Set(FlickrAnswer.extras)
        let kept = always.union(asked.flatMap { byExtra[$0] ?? [] })
        for (name, address) in [
            (
                "flickr-api-people-getPublicPhotos-page1.xml",
                "https://api.flickr.com/services/rest/?method=flickr.people.getPublicPhotos"
            ),
            ("flickr-api-photosets-getPhotos-delhi-life-page1.xml", Self.setAddress),
        ] {
            let text = try String(contentsOf: fixture(name), encoding: .utf8)
            // Each attribute of each <photo …> not asked for is taken out, as Flickr would leave it.
            var stripped = ""
            var rest = text[...]
            while let start = rest.range(of: "<photo ") {
                stripped += rest[..<start.upperBound]
                rest = rest[start.upperBound...]
                let end = try #require(rest.firstIndex(of: ">"))
                let attributes = rest[..<end]
                var keptText: [String] = []
                var scan = attributes[...]
                while let equals = scan.range(of: "=\"") {
                    let key = scan[..<equals.lowerBound].trimmingCharacters(in: .whitespaces)
                    let valueEnd = try #require(scan[equals.upperBound...].firstIndex(of: "\""))
                    if kept.contains(key) { keptText.append("\(key)=\"\(scan[equals.upperBound..<valueEnd])\"") }
                    scan = scan[scan.index(after: valueEnd)...]
                }
                stripped += keptText.joined(separator: " ") + (attributes.hasSuffix("/") ? " /" : "")
                rest = rest[end...]
            }
            stripped += rest
            if !asked.contains("description") {
                stripped = stripped.replacingOccurrences(
                    of: #"<description>[^<]*</description>"#, with: "", options: .regularExpression)
            }
            let reader = FeedReader()
            let whole = try reader.document(from: Data(text.utf8), location: URL(string: address)!, name: name)
            let lean = try reader.document(from: Data(stripped.utf8), location: URL(string: address)!, name: name)
            #expect(stripped.count < text.count * 3 / 4, "attributes were taken out")
            #expect(lean.photos.map(\.source) == whole.photos.map(\.source))
            #expect(lean.photos.map(\.metadata) == whole.photos.map(\.metadata), "\(name)")
            #expect(
                lean.photos.map(\.link) == whole.photos.map(\.link)
                    && lean.photos.map(\.date) == whole.photos.map(\.date))
            #expect(lean.photos.count == whole.photos.count && lean.entryCount == whole.entryCount)
        }
    }

    @Test func anotherServicesRspOrAnotherMethodsAnswerIsNotReadAsPhotos() throws {
        // Piwigo answers <rsp stat="ok"> in XML: not Flickr's unless it comes from Flickr's address.
        let piwigo = Data(
            #"<?xml version="1.0"?><rsp stat="ok"><categories><category id="1"/></categories></rsp>"#.utf8)
        let elsewhere = #expect(throws: FeedError.self) {
            try FeedReader().document(
                from: piwigo, location: URL(string: "https://p.example/ws.php?method=pwg.categories.getList")!,
                name: "ws.php")
        }
        #expect(elsewhere?.message.contains("Flickr") == false, "\(elsewhere?.message ?? "")")
        // Flickr's own answer to a method that lists no photos.
        let sets = Data(#"<rsp stat="ok"><photosets page="1" pages="1"><photoset id="1"/></photosets></rsp>"#.utf8)
        let error = #expect(throws: FeedError.self) {
            try FeedReader().document(from: sets, location: URL(string: Self.setAddress)!, name: "sets")
        }
        #expect(error?.message == "sets: Flickr answered with <photosets>, not a page of photos")
    }

    @Test func aPhotoWithNoSizeIsSkippedByItsPositionAndAnotherPageThanAskedEndsTheFeed() throws {
        let data = Data(
            """
            <rsp stat="ok"><photos page="3" pages="9">
            <photo id="1" title="a" url_l="https://x.example/a.jpg" width_l="1024" />
            <photo id="2" title="b" />
            </photos></rsp>
            """.utf8)
        let document = try FeedReader().document(
            from: data, location: URL(string: Self.setAddress + "&page=2")!, name: "set")
        #expect(document.photos.count == 1 && document.skipped.map(\.index) == [1])
        #expect(document.next == nil, "page 2 was asked for, page 3 came: the feed ends there")
    }

    private func fixture(_ name: String) -> URL { SavedMediaFeedTests.fixtures.appendingPathComponent(name) }
}
