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
        let data = try Data(contentsOf: SavedMediaFeedTests.fixtures.appendingPathComponent(name))
        return try FeedReader(configuration: FeedReader.Configuration(format: format, largestWidth: largestWidth))
            .document(from: data, location: URL(string: location)!, name: name)
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
        // Extras and a page size already given are kept; another host is another service.
        let chosen = URL(string: "https://api.flickr.com/services/rest/?method=m&extras=url_l&per_page=50")!
        #expect(FeedReader().firstPage(chosen) == chosen)
        let elsewhere = URL(string: "https://example.com/services/rest/?method=m")!
        #expect(FeedReader().firstPage(elsewhere) == elsewhere)
        let named = FeedReader(configuration: FeedReader.Configuration(format: .flickr)).firstPage(elsewhere)
        #expect(named.absoluteString.contains("extras="))
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
        #expect(document.photos.count == 1 && document.entryCount == 2)
        #expect(document.photos.first?.link == nil, "an owner that is no Flickr id makes no link")
    }

    private func fixture(_ name: String) -> URL { SavedMediaFeedTests.fixtures.appendingPathComponent(name) }
}

extension FeedReader {
    fileprivate func shapeNameIfReadable(_ data: Data) -> String? { try? shapeName(of: data, name: "feed") }
}
