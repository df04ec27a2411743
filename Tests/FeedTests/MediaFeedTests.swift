import Foundation
import Testing

@testable import Feed
@testable import GalleryCore

/// RSS and Atom feeds with Media RSS: what each element fills, and XML that is refused before it
/// can do harm.
@Suite struct MediaFeedTests {
    let location = URL(string: "https://example.social/@ana.rss")!

    func read(_ xml: String, format: FeedFormat = .auto) throws -> FeedDocument {
        try FeedReader(configuration: .init(format: format)).document(
            from: Data(xml.utf8), location: location, name: "ana.rss")
    }

    func failure(_ xml: String) -> FeedError? {
        do {
            _ = try read(xml)
            return nil
        } catch {
            return error as? FeedError
        }
    }

    /// Flickr's public feed in Atom (what it sends without `format=`): the entry's content holds
    /// the same "NAME posted a photo:" paragraph and thumbnail as the RSS form's description
    /// (the first photo of Fixtures/flickr-user-herval-2010.rss, written as Flickr writes Atom).
    /// Neither is a caption, nor the alt text.
    @Test func aFlickrAtomEntryHasNoPostedAPhotoCaption() throws {
        let document = try read(
            """
            <?xml version="1.0" encoding="utf-8" standalone="yes"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/"
                  xmlns:flickr="urn:flickr:user">
              <title>Uploads from herval</title>
              <entry>
                <title>Woof?</title>
                <link rel="alternate" type="text/html" href="http://www.flickr.com/photos/herval/4671960608/"/>
                <id>tag:flickr.com,2005:/photo/4671960608</id>
                <published>2010-06-05T14:41:10Z</published>
                <dc:date.Taken>2010-05-14T12:50:22-08:00</dc:date.Taken>
                <content type="html">\t\t\t&lt;p&gt;&lt;a href=&quot;http://www.flickr.com/people/herval/&quot;&gt;herval&lt;/a&gt; posted a photo:&lt;/p&gt;

            &lt;p&gt;&lt;a href=&quot;http://www.flickr.com/photos/herval/4671960608/&quot; title=&quot;Woof?&quot;&gt;&lt;img src=&quot;http://farm5.static.flickr.com/4040/4671960608_954d2297bc_m.jpg&quot; width=&quot;240&quot; height=&quot;160&quot; alt=&quot;Woof?&quot; /&gt;&lt;/a&gt;&lt;/p&gt;

            &lt;p&gt;Frodo, waiting.&lt;/p&gt;</content>
                <author><name>herval</name><uri>http://www.flickr.com/people/herval/</uri></author>
                <link rel="enclosure" type="image/jpeg" href="http://farm5.static.flickr.com/4040/4671960608_10cb945d5c_b.jpg"/>
                <category term="pets" scheme="http://www.flickr.com/photos/tags/"/>
              </entry>
              <entry>
                <title>No words</title>
                <id>tag:flickr.com,2005:/photo/2</id>
                <content type="html">&lt;p&gt;&lt;a href=&quot;http://www.flickr.com/people/herval/&quot;&gt;herval&lt;/a&gt; posted a photo:&lt;/p&gt;

            &lt;p&gt;&lt;a href=&quot;http://www.flickr.com/photos/herval/2/&quot;&gt;&lt;img src=&quot;http://farm5.static.flickr.com/2_m.jpg&quot; alt=&quot;No words&quot; /&gt;&lt;/a&gt;&lt;/p&gt;</content>
                <link rel="enclosure" type="image/jpeg" href="http://farm5.static.flickr.com/2_b.jpg"/>
              </entry>
            </feed>
            """)
        #expect(document.photos.count == 2)
        let first = try #require(document.photos.first)
        #expect(first.metadata.description == "Frodo, waiting.")
        #expect(first.metadata.creator == "herval" && first.metadata.keywords == ["pets"])
        #expect(document.photos[1].metadata.description == nil)
        for photo in document.photos {
            #expect(!(photo.metadata.alt ?? "").contains("posted a photo"))
            #expect(!(photo.metadata.description ?? "").contains("posted a photo"))
        }
    }

    @Test func anRSSFeedWithMediaRSSFillsEveryField() throws {
        let document = try read(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:dc="http://purl.org/dc/elements/1.1/">
              <channel>
                <title>Ana's photos</title>
                <item>
                  <title>Harbour &amp; boats</title>
                  <link>https://example.social/@ana/1</link>
                  <guid isPermaLink="true">https://example.social/@ana/1</guid>
                  <pubDate>Tue, 12 Mar 2024 14:05:00 +0100</pubDate>
                  <description>&lt;p&gt;Morning light.&lt;/p&gt;&lt;p&gt;Second &amp;amp; last.&lt;/p&gt;</description>
                  <media:group>
                    <media:content url="https://files.example.social/small.jpg" type="image/jpeg" width="640"/>
                    <media:content url="https://files.example.social/large.jpg" type="image/jpeg" width="2048">
                      <media:description type="plain">Boats moored in a grey harbour</media:description>
                    </media:content>
                    <media:content url="https://files.example.social/clip.mp4" type="video/mp4" width="4096"/>
                    <media:thumbnail url="https://files.example.social/thumb.jpg" width="150"/>
                  </media:group>
                  <media:credit role="photographer">Ana Lima</media:credit>
                  <media:keywords>harbour, boats ,sea</media:keywords>
                  <media:copyright>© 2024 Ana Lima</media:copyright>
                  <media:license href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</media:license>
                </item>
              </channel>
            </rss>
            """)
        #expect(document.title == "Ana's photos")
        let photo = try #require(document.photos.first)
        #expect(
            photo.source.absoluteString == "https://files.example.social/large.jpg", "the largest image, not the video")
        #expect(photo.title == "Harbour & boats")
        #expect(photo.id == "https://example.social/@ana/1")
        #expect(photo.link?.absoluteString == "https://example.social/@ana/1")
        #expect(photo.date == FeedDate.parse("2024-03-12T13:05:00Z"))
        let said = photo.metadata
        #expect(said.alt == "Boats moored in a grey harbour")
        #expect(said.description == "Morning light.\n\nSecond & last.")
        #expect(said.keywords == ["harbour", "boats", "sea"])
        #expect(said.creator == "Ana Lima")
        #expect(said.rights == "© 2024 Ana Lima")
        #expect(said.licence == "https://creativecommons.org/licenses/by/4.0/")
        #expect(said.taken == nil, "a post's date is when it was published, not taken")
    }

    @Test func anAtomFeedAndEnclosuresAndThumbnails() throws {
        let document = try read(
            """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
              <title type="html">Pix &amp;lt;3</title>
              <entry>
                <id>tag:pix.example,2024:1</id>
                <title>First</title>
                <link rel="alternate" href="https://pix.example/p/1"/>
                <link rel="enclosure" type="image/webp" href="/storage/1.webp"/>
                <published>2024-05-01T08:00:00Z</published>
                <author><name>Bo</name></author>
                <category term="spring"/>
                <summary type="html">&lt;b&gt;Blossom&lt;/b&gt;</summary>
              </entry>
              <entry>
                <id>2</id>
                <media:thumbnail url="https://pix.example/2-small.jpg" width="320"/>
                <media:thumbnail url="https://pix.example/2-big.jpg" width="1080"/>
              </entry>
              <entry><id>3</id><title>No image</title></entry>
            </feed>
            """)
        #expect(document.title == "Pix <3")
        #expect(
            document.photos.map(\.source.absoluteString) == [
                "https://example.social/storage/1.webp", "https://pix.example/2-big.jpg",
            ])
        let first = document.photos[0]
        #expect(first.link?.absoluteString == "https://pix.example/p/1")
        #expect(first.metadata.creator == "Bo" && first.metadata.keywords == ["spring"])
        #expect(first.metadata.description == "Blossom")
        #expect(document.skipped.isEmpty && document.photos.count == 2, "an entry without an image is no photo")
    }

    @Test func rssDatesAreReadInEveryZone() {
        #expect(RFC822.rfc3339("Sat, 07 Sep 2002 00:00:01 GMT") == "2002-09-07T00:00:01Z")
        #expect(RFC822.rfc3339("7 Sep 02 09:30 EDT") == "2002-09-07T09:30:00-04:00")
        #expect(RFC822.rfc3339("Mon, 01 Jan 2024 23:59:59 -0530") == "2024-01-01T23:59:59-05:30")
        #expect(RFC822.rfc3339("yesterday") == nil)
        #expect(RFC822.rfc3339("Mon, 32 Jan 2024 10:00:00 GMT") == nil)
    }

    @Test func entitiesAndDeclarationsAreRefusedBeforeParsing() throws {
        // XXE: an external entity would read a file of the machine into the pages.
        let xxe = failure(
            """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <rss><channel><item><title>&secret;</title></item></channel></rss>
            """)
        #expect(xxe?.code == .invalidXML && xxe?.location?.line == 2 && xxe?.location?.column == 1)
        #expect(xxe?.message.contains("<!DOCTYPE") == true)
        // A billion laughs: entities of entities.
        let laughs = String(repeating: "<!ENTITY a\\(0) \"lol\">", count: 1)
        let bomb = failure("<rss>\n  \(laughs)<channel/></rss>")
        #expect(bomb?.code == .invalidXML && bomb?.location?.line == 2 && bomb?.location?.column == 3)
        // The same in UTF-16, where a byte scan would not see it: refused for its encoding.
        var utf16 = Data([0xFF, 0xFE])
        utf16.append("<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE rss><rss/>".data(using: .utf16LittleEndian)!)
        #expect(throws: FeedError.self) {
            try FeedReader(configuration: .init(format: .rss)).document(
                from: utf16, location: location, name: "ana.rss")
        }
    }

    /// Encodings in which `<!DOCTYPE` is not written as ASCII, so a byte scan would not see it,
    /// though the XML parser would read it: refused for their encoding, not parsed.
    @Test(arguments: [
        // UTF-7: `+ADw-!DOCTYPE` is `<!DOCTYPE`.
        Data(
            #"<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE rss +AFs-+ADw-!ENTITY x SYSTEM +ACI-file:///etc/passwd+ACI-+AD4-+AF0-+AD4-<rss/>"#
                .utf8),
        // EBCDIC (IBM037): `<?xml` is 4C 6F A7 94 93.
        Data([
            0x4C, 0x6F, 0xA7, 0x94, 0x93, 0x40, 0xA5, 0x85, 0x99, 0xA2, 0x89, 0x96, 0x95, 0x7E, 0x7F, 0xF1, 0x4B, 0xF0,
            0x7F,
        ]),
        Data(#"<?xml version='1.0' encoding='ibm037'?><rss/>"#.utf8),
        // Line breaks around the `=`, as XML allows them.
        Data("<?xml version=\"1.0\" encoding\r\n=\n\"UTF-7\"?>+ADw-!DOCTYPE rss+AD4-<rss/>".utf8),
        // The name pushed past the first bytes read, and a declaration that does not end there.
        Data(("<?xml version=\"1.0\"" + String(repeating: " ", count: 600) + "encoding=\"IBM037\"?><rss/>").utf8),
        Data(("<?xml version=\"1.0\"" + String(repeating: " ", count: 2000) + "encoding=\"UTF-7\"?><rss/>").utf8),
    ])
    func aDeclarationInAnotherEncodingIsRefused(data: Data) {
        let error = #expect(throws: FeedError.self) {
            try FeedReader(configuration: .init(format: .rss)).document(from: data, location: location, name: "ana.rss")
        }
        #expect(error?.code == .invalidXML)
        #expect(error?.message.contains("UTF-8") == true, "\(String(describing: error))")
    }

    @Test func anEncodingThatWritesASCIIAsASCIIIsRead() throws {
        let document = try read(
            #"<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><title>T</title></channel></rss>"#)
        #expect(document.title == "T")
        // A Windows line break around the `=` is white space as a Unix one is.
        let crlf = try read(
            "<?xml version=\"1.0\" encoding\r\n=\r\n\"UTF-8\"?><rss><channel><title>T</title></channel></rss>")
        #expect(crlf.title == "T")
    }

    @Test func brokenXMLNamesItsPlace() {
        let broken = failure("<rss><channel>\n<item><title>x</titel></item></channel></rss>")
        #expect(broken?.code == .invalidXML && broken?.location?.line == 2, "\(String(describing: broken))")
        let deep = failure(
            "<rss>" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100) + "</rss>")
        #expect(deep?.message.contains("nested more than 64 deep") == true)
        let other = failure("<html><body/></html>")
        #expect(other?.code == .unknownShape && other?.message.contains("<html>") == true)
        // Asked for RSS, given JSON.
        #expect(throws: FeedError.self) { try read("[]", format: .rss) }
    }

    @Test func htmlBecomesText() {
        #expect(
            HTMLText.plain("<p>One<br>two &#8217;s &#x263A;</p><p>Three &unknown; &amp;</p>")
                == "One\ntwo ’s ☺\n\nThree &unknown; &")
        #expect(HTMLText.plain("plain") == "plain")
    }
}

/// The saved feeds of Fixtures/ (README.md there says where each came from).
@Suite struct SavedMediaFeedTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func read(_ name: String, from location: String) throws -> FeedDocument {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
        return try FeedReader().document(from: data, location: URL(string: location)!, name: name)
    }

    @Test func aFlickrPhotostream() throws {
        let document = try read(
            "flickr-user-herval-2010.rss", from: "https://www.flickr.com/services/feeds/photos_public.gne")
        #expect(document.title == "Uploads from herval")
        #expect(document.photos.count == 20 && document.skipped.isEmpty)
        let first = try #require(document.photos.first)
        #expect(first.title == "Woof?")
        #expect(first.source.absoluteString == "http://farm5.static.flickr.com/4040/4671960608_10cb945d5c_o.jpg")
        #expect(first.id == "tag:flickr.com,2004:/photo/4671960608")
        #expect(first.link?.absoluteString == "http://www.flickr.com/photos/herval/4671960608/")
        #expect(first.date == FeedDate.parse("2010-06-05T14:41:10Z"))
        #expect(first.metadata.taken == CaptureTime.parse("2010-05-14T12:50:22-08:00"))
        #expect(first.metadata.keywords == ["pets", "frodo"])
        #expect(first.metadata.creator == "herval")
        #expect(first.metadata.licence == "http://creativecommons.org/licenses/by/2.0/deed.en")
        // Flickr's "herval posted a photo:" and the thumbnail's markup are no caption.
        #expect(first.metadata.description == nil)
    }

    @Test func aMastodonAccountsPostsWithImages() throws {
        let document = try read("mastodon-account-click.ba.it-jason.rss", from: "https://click.ba.it/@jason.rss")
        #expect(document.title == "Fussili Paganini")
        // Twelve posts, three with an image: the others are no photos, and not reported as skipped.
        #expect(document.photos.count == 3 && document.skipped.isEmpty)
        let first = try #require(document.photos.first)
        #expect(first.source.absoluteString.hasSuffix("/original/a64d8d6e4f5d469a.jpeg"))
        #expect(
            first.metadata.description
                == "Interessante Klassifizierung, Amazon. Die Serie ist sicherlich sehr romantisch 😂")
        #expect(first.link?.absoluteString == "https://click.ba.it/@jason/117118697105682045")
        #expect(document.photos[1].metadata.keywords == ["curentEvents", "hope"])
        #expect(document.photos[2].metadata.description == nil, "an empty description says nothing")
    }
}
