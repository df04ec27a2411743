import Foundation
import GalleryCore
import Testing

@testable import Rendering

@Suite struct PageFingerprintTests {
    func fingerprint(_ model: some Encodable, path: String = "index.html") -> PageFingerprint {
        PageFingerprint.of(model, path: path, salt: Array("salt".utf8))
    }

    func navigation(previous: String?, next: String?, links: [Int?] = [1, 2]) -> PageViewModel.Navigation {
        PageViewModel.Navigation(
            number: 1, count: 2,
            links: links.map { PageViewModel.Navigation.Link(number: $0, href: $0.map { "page-\($0).html" }) },
            previous: previous, next: next)
    }

    @Test func everyStoredValueCountsAndWhereItStands() {
        let base = fingerprint(navigation(previous: nil, next: "page-2.html"))
        #expect(base == fingerprint(navigation(previous: nil, next: "page-2.html")), "the same values, the same print")
        // The same string in another field, a gap instead of a link, one link fewer: all differ.
        let others = [
            fingerprint(navigation(previous: "page-2.html", next: nil)),
            fingerprint(navigation(previous: nil, next: "page-2.html", links: [1, nil])),
            fingerprint(navigation(previous: nil, next: "page-2.html", links: [1])),
            fingerprint(navigation(previous: nil, next: "page-2.html"), path: "page-2.html"),
            PageFingerprint.of(navigation(previous: nil, next: "page-2.html"), path: "index.html", salt: []),
        ]
        #expect(Set(others + [base]).count == others.count + 1)
    }

    @Test func stringsAreDelimitedByTheirLength() {
        let a = PhotoPageViewModel.Link(href: "ab", title: "c")
        let b = PhotoPageViewModel.Link(href: "a", title: "bc")
        #expect(fingerprint(a) != fingerprint(b))
    }

    @Test func aTilesOwnMarkupIsNotPartOfIt() {
        var tile = PhotoViewModel(for: SiteRendererTests.item(0), slug: "p", eager: true, grid: .justified)
        let before = fingerprint(tile)
        tile.html = "<li>rendered</li>"
        #expect(fingerprint(tile) == before, "the markup is made from the values, which count already")
        tile.alt = "another"
        #expect(fingerprint(tile) != before)
    }

    @Test func theHexFormReadsBack() {
        let print = fingerprint(navigation(previous: nil, next: nil))
        let hex = print.description
        #expect(hex.utf8.count == 64)
        #expect(PageFingerprint(hexText: hex) == print)
        #expect(PageFingerprint(hexText: String(hex.dropFirst())) == nil)
        #expect(hex.contains(where: \.isLetter) == (PageFingerprint(hexText: hex.uppercased()) == nil))
        #expect(PageFingerprint(hexText: String(repeating: "0", count: 63) + "g") == nil)
        #expect(
            PageFingerprint(hexText: String(repeating: "0", count: 63) + "1") == PageFingerprint(words: (0, 0, 0, 1)))
    }

    @Test func theSourcesCoverEveryItemAndEverySetting() async throws {
        let gallery = Gallery(
            title: "G", introHTML: "", baseURL: nil, items: (0..<3).map { SiteRendererTests.item($0) })
        let renderer = try await SiteRendererTests().renderer()
        let base = await renderer.sourcesFingerprint(of: gallery)
        #expect(await renderer.sourcesFingerprint(of: gallery) == base)
        var rendition = gallery
        rendition.items[1].image?.renditions[0].byteCount += 1
        var intro = gallery
        intro.introHTML = "<p>Hello</p>"
        var failure = gallery
        failure.items[2].failure = "HTTP 404"
        var order = gallery
        order.items.swapAt(0, 1)
        let others = [
            await renderer.sourcesFingerprint(of: rendition), await renderer.sourcesFingerprint(of: intro),
            await renderer.sourcesFingerprint(of: failure), await renderer.sourcesFingerprint(of: order),
            try await SiteRendererTests().renderer(pageSize: 2).sourcesFingerprint(of: gallery),
        ]
        #expect(Set(others + [base]).count == others.count + 1)
    }

    func fingerprint(of item: GalleryItem) -> PageFingerprint {
        let encoder = FingerprintEncoder()
        item.writeFingerprint(to: encoder)
        return PageFingerprint.of(encoder.bytes, path: "", salt: [])
    }

    @Test func anItemsFingerprintHoldsEveryStoredValue() throws {
        // writeFingerprint names each stored value by hand: a value added to one of these types
        // must be added there too, and this list with it.
        var item = SiteRendererTests.item(0, album: "Coast", formats: [.webp, .jpeg])
        item.photo.link = URL(string: "https://example.org/p")
        item.photo.date = Date(timeIntervalSince1970: 1_700_000_000)
        item.failure = "kept from a stale copy"
        item.image?.camera = CameraDetails(
            camera: "c", lens: "l", focalLength: "f", aperture: "a", exposure: "e", iso: "i", taken: "t")
        item.image?.renditions[0].sha256 = "ab"
        let said = PhotoMetadata(
            title: "t", description: "d", alt: "a", keywords: ["k"], taken: CaptureTime(local: "2024-05-01T14:32:10"),
            rating: 3, creator: "c", rights: "r", licence: "https://example.org/l",
            location: GeoPoint(latitude: 59.9, longitude: 10.7))
        item.photo.metadata = said
        item.photo.captionMarkdown = "*m*"
        item.photo.motion = URL(fileURLWithPath: "/photos/IMG_0001.MOV")
        item.photo.contentWarning = "w"
        item.captionHTML = "<p><em>m</em></p>"
        item.download = Download(path: "originals/ab.jpg", fileName: "a.jpg", byteCount: 9, kind: "JPEG")
        item.image?.metadata = said
        item.image?.video = VideoDetails(duration: 7.5, hasAudio: true, recipe: "720|mp4|sound|ffmpeg 5.1")
        item.image?.motion = [
            Rendition(format: .mp4, width: 1280, height: 720, path: "images/live-720p.mp4", byteCount: 9)
        ]
        let image = try #require(item.image)
        let labels = { (value: Any) in Mirror(reflecting: value).children.compactMap(\.label) }
        #expect(labels(item) == ["photo", "image", "failure", "sourceName", "captionHTML", "download"])
        #expect(labels(try #require(item.download)) == ["path", "fileName", "byteCount", "kind", "photoCount"])
        #expect(
            labels(item.photo) == [
                "index", "id", "title", "source", "albumPath", "link", "date", "hasFeedID", "titleIsFileName",
                "metadata",
                "captionMarkdown", "motion", "contentWarning",
            ])
        #expect(
            labels(image) == [
                "width", "height", "renditions", "placeholder", "hasTransparency", "camera", "metadata", "video",
                "motion",
            ])
        #expect(labels(try #require(image.video)) == ["duration", "hasAudio", "recipe"])
        #expect(
            labels(item.photo.metadata) == [
                "title", "description", "alt", "keywords", "taken", "rating", "creator", "rights", "licence",
                "location",
            ])
        #expect(labels(image.renditions[0]) == ["format", "width", "height", "path", "byteCount", "sha256"])
        #expect(labels(image.placeholder) == ["color", "dataURI"])
        #expect(
            labels(try #require(image.camera))
                == ["camera", "lens", "focalLength", "aperture", "exposure", "iso", "taken"])

        // Each of them counts.
        var changes: [(inout GalleryItem) -> Void] = [
            { $0.photo.index += 1 }, { $0.photo.id += "x" }, { $0.photo.title += "x" },
            { $0.photo.source = URL(string: "https://cdn.example.com/other.jpg")! }, { $0.photo.album = nil },
            { $0.photo.albumPath = ["Coast", "North"] }, { $0.photo.albumPath = ["Coast / North"] },
            { $0.photo.link = nil }, { $0.photo.date = nil }, { $0.photo.hasFeedID.toggle() },
            { $0.image = nil }, { $0.image?.width += 1 }, { $0.image?.height += 1 },
            { $0.image?.renditions.removeLast() }, { $0.image?.renditions[0].format = .avif },
            { $0.image?.renditions[0].width += 1 }, { $0.image?.renditions[0].height += 1 },
            { $0.image?.renditions[0].path += "x" }, { $0.image?.renditions[0].byteCount += 1 },
            { $0.image?.renditions[0].sha256 = nil }, { $0.image?.placeholder.color = "#000000" },
            { $0.image?.placeholder.dataURI += "x" }, { $0.image?.hasTransparency.toggle() },
            { $0.image?.camera = nil }, { $0.image?.camera?.camera = nil }, { $0.image?.camera?.lens = nil },
            { $0.image?.camera?.focalLength = nil }, { $0.image?.camera?.aperture = nil },
            { $0.image?.camera?.exposure = nil }, { $0.image?.camera?.iso = nil }, { $0.image?.camera?.taken = nil },
            { $0.failure = nil }, { $0.sourceName += "x" }, { $0.photo.titleIsFileName.toggle() },
            { $0.photo.captionMarkdown = nil }, { $0.captionHTML = nil }, { $0.image?.metadata = nil },
            { $0.download = nil }, { $0.download?.path += "x" }, { $0.download?.fileName += "x" },
            { $0.download?.byteCount += 1 }, { $0.download?.kind += "x" },
            { $0.image?.video = nil }, { $0.image?.video?.duration += 1 }, { $0.image?.video?.hasAudio.toggle() },
            { $0.image?.video?.recipe += "x" },
            { $0.image?.motion = [] }, { $0.photo.motion = nil }, { $0.image?.motion[0].path += "x" },
            { $0.image?.motion[0].width += 1 },
            { $0.image?.motion[0].height += 1 }, { $0.image?.motion[0].format = .webm },
            { $0.photo.contentWarning = nil }, { $0.photo.contentWarning = "" }, { $0.photo.contentWarning = "x" },
        ]
        // Every field of what the photo says counts, from the feed or sidecar and from the photo.
        let fields: [(inout PhotoMetadata) -> Void] = [
            { $0.title = nil }, { $0.description = nil }, { $0.alt = nil }, { $0.keywords = [] },
            { $0.taken = CaptureTime(local: "2024-05-01T14:32:11") }, { $0.taken?.offset = "Z" }, { $0.rating = 4 },
            { $0.creator = nil }, { $0.rights = nil }, { $0.licence = nil },
            { $0.location = GeoPoint(latitude: 10.7, longitude: 59.9) }, { $0.location = nil },
        ]
        for field in fields {
            changes.append { field(&$0.photo.metadata) }
            changes.append { item in
                if var metadata = item.image?.metadata {
                    field(&metadata)
                    item.image?.metadata = metadata
                }
            }
        }
        var prints = [fingerprint(of: item)]
        for change in changes {
            var changed = item
            change(&changed)
            prints.append(fingerprint(of: changed))
        }
        #expect(Set(prints).count == changes.count + 1)
        // The same string moved from one optional to the next is another item.
        var moved = item
        (moved.photo.album, moved.failure) = (nil, "Coast")
        var other = item
        other.failure = nil
        #expect(fingerprint(of: moved) != fingerprint(of: other))
    }
}
