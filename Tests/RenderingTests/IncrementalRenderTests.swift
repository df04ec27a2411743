import Foundation
import GalleryCore
import Testing

@testable import Rendering

/// A page found in place with the key this build gives it is not built (``PageKeys``): these
/// tests change a gallery every way a photographer does, render it against the last render's
/// keys, and check that every page left in place is the page a render from nothing makes, and
/// that a change renders only the pages that show it.
@Suite struct IncrementalRenderTests {
    /// What one render left: each page's key and bytes.
    struct Rendered {
        var keys: [String: PageFingerprint] = [:]
        var bytes: [String: [UInt8]] = [:]
        var sources = PageFingerprint(words: (0, 0, 0, 0))
        /// The pages this render built (the rest were in place).
        var built: Set<String> = []
    }

    func renderer() async throws -> SiteRenderer {
        try await SiteRenderer(
            configuration: .init(themeDirectory: SiteRendererTests.themeDirectory, pageSize: 4, keywordPages: true))
    }

    func render(_ gallery: Gallery, after previous: Rendered? = nil) async throws -> Rendered {
        var result = Rendered()
        let reuse = previous.map { previous in
            SiteRenderer.PageReuse(sources: previous.sources, recorded: { previous.keys[$0] })
        }
        result.sources = try await renderer().render(gallery, chunk: 1024, reusing: reuse) { (chunk) throws(Never) in
            for file in chunk.files {
                result.bytes[file.path] = file.contents
                if let key = file.fingerprint {
                    result.keys[file.path] = key
                    result.built.insert(file.path)
                }
            }
            for page in chunk.unchanged {
                result.keys[page.path] = page.fingerprint
                result.bytes[page.path] = previous?.bytes[page.path]
            }
        }
        return result
    }

    /// Fourteen photos in two albums, four a page, some with keywords, the fifth with a caption.
    static func gallery() -> Gallery {
        let items = (0..<14).map { index in
            var item = SiteRendererTests.item(index, title: "P\(index)", album: index < 8 ? "Coast" : "Hills")
            var photo = item.photo
            if index % 3 == 0 { photo.metadata.keywords = ["sea"] }
            if index == 4 { photo.captionMarkdown = "A caption" }
            item = GalleryItem(
                photo: photo, image: item.image, captionHTML: photo.captionMarkdown.map { "<p>\($0)</p>" })
            return item
        }
        return Gallery(
            title: "Notes", introHTML: "<p>Hi</p>", baseURL: "https://example.org/g/", items: items,
            albums: [["Coast"]: AlbumDetails(title: "The coast")])
    }

    /// `item` with its photo changed by `change`.
    static func changing(_ item: GalleryItem, _ change: (inout Photo) -> Void) -> GalleryItem {
        var photo = item.photo
        change(&photo)
        return GalleryItem(
            photo: photo, image: item.image, failure: item.failure,
            captionHTML: photo.captionMarkdown.map { "<p>\($0)</p>" })
    }

    /// The items renumbered in their order (a folder feed's photos are numbered as read).
    static func renumbered(_ items: [GalleryItem]) -> [GalleryItem] {
        items.enumerated().map { offset, item in changing(item) { $0.index = offset } }
    }

    enum Change: String, CaseIterable, Sendable {
        case nothing, caption, title, addedLast, addedInTheMiddle, removed, movedToAnotherAlbum, albumRetitled
        case newKeyword, failed, contentWarning, intro, newAlbum

        func apply(to gallery: Gallery) -> Gallery {
            var gallery = gallery
            var items = gallery.items
            switch self {
            case .nothing: break
            case .caption: items[6] = changing(items[6]) { $0.captionMarkdown = "Now with a caption" }
            case .title: items[5] = changing(items[5]) { $0.title = "Renamed" }
            case .addedLast:
                items.append(SiteRendererTests.item(14, title: "P14", album: "Hills"))
            case .addedInTheMiddle:
                items.insert(SiteRendererTests.item(99, title: "New", album: "Coast"), at: 3)
                items = renumbered(items)
            case .removed:
                items.remove(at: 2)
                items = renumbered(items)
            case .movedToAnotherAlbum: items[1] = changing(items[1]) { $0.albumPath = ["Hills"] }
            case .albumRetitled: gallery.albums[["Coast"]] = AlbumDetails(title: "The shore")
            case .newKeyword: items[7] = changing(items[7]) { $0.metadata.keywords = ["dune"] }
            case .failed:
                items[9] = GalleryItem(photo: items[9].photo, image: nil, failure: "HTTP 404")
            case .contentWarning: items[10] = changing(items[10]) { $0.contentWarning = "spiders" }
            case .intro: gallery.introHTML = "<p>Hello again</p>"
            case .newAlbum: items[13] = changing(items[13]) { $0.albumPath = ["Woods"] }
            }
            gallery.items = items
            return gallery
        }
    }

    @Test(arguments: Change.allCases)
    func pagesLeftInPlaceAreThePagesARenderFromNothingMakes(_ change: Change) async throws {
        let before = try await render(Self.gallery())
        let changed = change.apply(to: Self.gallery())
        let incremental = try await render(changed, after: before)
        let fresh = try await render(changed)
        #expect(Set(incremental.bytes.keys) == Set(fresh.bytes.keys))
        for (path, bytes) in fresh.bytes {
            #expect(
                incremental.bytes[path] == bytes,
                "\(change): \(path) is not what a render from nothing makes (built: \(incremental.built.contains(path)))"
            )
        }
        if change == .nothing { #expect(incremental.built.isEmpty) }
    }

    /// What one change builds: the pages that show it, not every page.
    @Test func aChangeBuildsOnlyThePagesThatShowIt() async throws {
        let before = try await render(Self.gallery())
        let pages = before.keys.count
        func built(_ change: Change) async throws -> Set<String> {
            try await render(change.apply(to: Self.gallery()), after: before).built
        }
        // The caption of P6: its page, its neighbours' (they show its title, not its caption,
        // but the item's key is one), its grid pages (all photos, its album).
        let caption = try await built(.caption)
        #expect(caption.contains("photos/p6-7.html") && caption.count <= 6, "\(caption.sorted())")
        // A photo added last: its page, its neighbour's, the last grid page of its lists, and
        // the first page of each list (which counts the photos).
        let added = try await built(.addedLast)
        #expect(added.contains("photos/p14-15.html") && added.count <= 7, "\(added.sorted()) of \(pages)")
        #expect(!added.contains("page-2.html") && !added.contains("photos/p3-4.html"))
    }
}
