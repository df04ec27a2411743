import Foundation
import GalleryCore
import Testing

@testable import Feed

/// A feed's clips are items as its photos are: a JSON Feed's video attachment (its `image` is
/// then a poster), Media RSS's video content and video enclosures, and a mapped `video` field.
@Suite struct VideoEntryTests {
    let feeds = FeedReaderTests()

    @Test func aLivePhotoIsAStillAndAClipOfTheSameNameWhateverTheCaseOfTheirExtensions() {
        let names: Set<String> = [
            "IMG_1.heic", "IMG_1.Mov", "IMG_2.Jpg", "IMG_2.mov", "IMG_2.mp4", "IMG_3.png", "IMG_3.mov", "img_4.jpg",
            "IMG_4.MOV", "IMG_5.JPEG",
        ]
        #expect(FeedReader.livePhotos(among: names.sorted()) == ["IMG_1.heic": "IMG_1.Mov", "IMG_2.Jpg": "IMG_2.mov"])
    }

    @Test func aJSONFeedPostWithAVideoAttachmentIsTheClip() throws {
        let document = try feeds.read(
            """
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"id": "a", "title": "Waves", "image": "https://cdn.example.org/waves-poster.jpg", "attachments": [
                {"url": "https://cdn.example.org/waves.mp4", "mime_type": "video/mp4"}]},
              {"id": "b", "title": "Ridge", "attachments": [
                {"url": "https://cdn.example.org/ridge.webp", "mime_type": "image/webp"}]}]}
            """)
        #expect(
            document.photos.map(\.source.absoluteString) == [
                "https://cdn.example.org/waves.mp4", "https://cdn.example.org/ridge.webp",
            ])
    }

    @Test func aMappedVideoFieldWinsOverTheImageWhenAnEntryHasOne() throws {
        let document = try feeds.read(
            """
            {"data": [{"key": "1", "still": "https://cdn.example.org/1.jpg", "movie": "https://cdn.example.org/1.mov"},
                      {"key": "2", "still": "https://cdn.example.org/2.jpg", "movie": ""},
                      {"key": "3", "still": "https://cdn.example.org/3.jpg"}]}
            """,
            fields: FieldMapping(items: "data", image: "still", id: "key", video: "movie"))
        #expect(
            document.photos.map(\.source.lastPathComponent) == ["1.mov", "2.jpg", "3.jpg"])
    }

    @Test func mediaRSSVideoContentAndVideoEnclosuresAreClips() throws {
        let document = try MediaFeedTests().read(
            """
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Clips</title>
              <item><guid>1</guid><title>Surf</title>
                <media:content url="https://files.example.social/surf.mp4" type="video/mp4" medium="video">
                  <media:description type="plain">Waves breaking at dusk</media:description>
                </media:content>
                <media:thumbnail url="https://files.example.social/surf.jpg" width="320"/></item>
              <item><guid>2</guid><title>Dunes</title>
                <enclosure url="https://files.example.social/dunes.webm" type="video/webm" length="1000"/></item>
              <item><guid>3</guid><title>Only clips</title><media:group>
                <media:content url="https://files.example.social/a-480.mp4" type="video/mp4" width="854"/>
                <media:content url="https://files.example.social/a-1080.mp4" type="video/mp4" width="1920"/>
              </media:group></item>
            </channel></rss>
            """)
        #expect(document.photos.map(\.source.lastPathComponent) == ["surf.mp4", "dunes.webm", "a-1080.mp4"])
        #expect(document.photos[0].metadata.alt == "Waves breaking at dusk")
    }

    /// A name's stem and extension are those Foundation's `NSString` gives.
    @Test(arguments: [
        "IMG_1.heic", "a.b.jpg", "name", "name.", ".hidden", "..x", "x..jpg", "photo.JPEG", "é.jpg", "a.b.", "..",
        "archive.tar.gz",
    ])
    func aNameSplitsAsNSStringSplitsIt(_ name: String) {
        let (stem, type) = FeedReader.nameParts(name)
        #expect(type == (name as NSString).pathExtension, "\(name)")
        #expect(stem == (name as NSString).deletingPathExtension, "\(name)")
    }
}
