import Crypto
import Foundation
import GalleryConcurrency
import GalleryCore

/// What each grid and photo page is made from, as a ``PageFingerprint``, taken without building
/// the page: the values every page reads (the site's, once), then the page's own (its path, its
/// number and its list's length, the items it shows and their neighbours, by each item's own
/// fingerprint). A rebuild that finds a page in place with its key does not build it, so one
/// caption changed in 100,000 photos builds only the pages that show it.
///
/// A key holds every value its page's view model is made of (``PagePlan/model(for:photos:grid:)``,
/// ``PagePlan/PhotoPages/page(at:)``): a value a page shows and its key leaves out would leave
/// the page stale. IncrementalRenderTests builds galleries changed every way a photographer
/// changes one, and checks that pages rendered against the last build's keys are the bytes of
/// a render from nothing.
struct PageKeys: Sendable {
    let plan: PagePlan
    let slugs: [Int: String]
    /// Each item's own fingerprint, by ``Photo/index``.
    let items: ItemKeys
    /// The site's values every grid page reads, with the grid template's salt.
    private let gridSite: [UInt8]
    /// The site's values every photo page reads, with the photo page template's salt.
    private let photoSite: [UInt8]

    init(
        plan: PagePlan, slugs: [Int: String], items: ItemKeys,
        configuration: SiteRenderer.Configuration, salt: [String: [UInt8]]
    ) {
        self.plan = plan
        self.slugs = slugs
        self.items = items
        func site(_ template: String, _ write: (FingerprintEncoder) -> Void) -> [UInt8] {
            let encoder = FingerprintEncoder()
            encoder.bytes += salt[template] ?? []
            try? encoder.append(nested: configuration)
            encoder.append(plan.gallery.title)
            encoder.append(optional: plan.gallery.baseURL)
            write(encoder)
            return Array(SHA256.hash(data: encoder.bytes))
        }
        gridSite = site("page") { encoder in
            encoder.append(plan.gallery.introHTML)
            // The header: the albums not inside another (their titles and links, not their
            // counts), or the albums page; the keywords page.
            encoder.append(bool: plan.hasAlbumsPage)
            encoder.append(bool: plan.hasKeywordsPage)
            encoder.append(int: plan.topAlbums.count)
            for number in plan.topAlbums {
                encoder.append(plan.albums[number].title)
                encoder.append(plan.albums[number].href)
            }
        }
        photoSite = site("photo-page") { _ in }
    }

    /// The fingerprints of every item, by ``Photo/index``, taken 1,024 at a time on every core.
    static func itemFingerprints(of items: [GalleryItem]) async -> ItemKeys {
        let size = 1024
        let parts = await Array(stride(from: 0, to: items.count, by: size)).concurrentMap { start in
            items[start..<min(start + size, items.count)].map { item in
                let encoder = FingerprintEncoder()
                item.writeFingerprint(to: encoder, includingIndex: item.showsIndex)
                return (item.photo.index, PageFingerprint(digest: SHA256.hash(data: encoder.bytes)))
            }
        }
        var keys = ItemKeys(count: (items.map(\.photo.index).max() ?? -1) + 1)
        for part in parts {
            for (index, key) in part { keys[index] = key }
        }
        return keys
    }

    private func append(_ item: GalleryItem?, to encoder: FingerprintEncoder) {
        guard let item else { return encoder.append(.null) }
        encoder.append(.open)
        encoder.append(fingerprint: items[item.photo.index] ?? PageFingerprint(words: (0, 0, 0, 0)))
        encoder.append(optional: slugs[item.photo.index])
        encoder.append(.close)
    }

    private func append(trail: [PhotoPageViewModel.Link], to encoder: FingerprintEncoder) {
        encoder.append(int: trail.count)
        for link in trail {
            encoder.append(link.href)
            encoder.append(link.title)
        }
    }

    /// The key of a grid page: the site's values, and the page's own (its tiles, its place in its
    /// list, its album or keyword, and on its first page its count, description, download and
    /// inner albums).
    func grid(_ page: PagePlan.Page) -> PageFingerprint {
        let encoder = FingerprintEncoder()
        encoder.bytes += gridSite
        encoder.append(page.path)
        encoder.append(int: page.number)
        encoder.append(int: page.siblings.count)
        encoder.append(page.siblings.first ?? "")
        encoder.append(int: page.items.count)
        for item in page.items { append(item, to: encoder) }
        let first = page.number == 1
        switch page.kind {
        case .all:
            encoder.append("all")
            if first { encoder.append(int: plan.gallery.items.count) }
        case .album(let number):
            let album = plan.albums[number]
            encoder.append("album")
            encoder.append(album.title)
            encoder.append(album.href)
            var top = number
            while let parent = plan.albums[top].parent { top = parent }
            encoder.append(int: top)
            append(trail: plan.trail(to: album.parent), to: encoder)
            // Shared, every page shows the album's cover.
            append(album.cover, to: encoder)
            if first {
                encoder.append(int: album.count)
                encoder.append(optional: album.descriptionHTML)
                try? encoder.append(nested: plan.gallery.albums[album.path]?.download)
                encoder.append(int: album.children.count)
                for child in album.children.map({ plan.albums[$0] }) {
                    encoder.append(child.title)
                    encoder.append(child.href)
                    encoder.append(int: child.count)
                    append(child.cover, to: encoder)
                }
            }
        case .keyword(let number):
            let keyword = plan.keywords[number]
            encoder.append("keyword")
            encoder.append(keyword.title)
            encoder.append(keyword.href)
            if first { encoder.append(int: keyword.items.count) }
        }
        return PageFingerprint(digest: SHA256.hash(data: encoder.bytes))
    }

    /// The key of the photo page at `position` (``PagePlan/PhotoPages``): the site's values, the
    /// photo, its neighbours, the grid page it is on, its albums and its keywords' pages.
    func photo(at position: Int, of pages: PagePlan.PhotoPages) -> PageFingerprint {
        let encoder = FingerprintEncoder()
        encoder.bytes += photoSite
        let offset = pages.shown[position]
        let item = plan.gallery.items[offset]
        encoder.append(pages.path(at: position))
        append(item, to: encoder)
        append(position > 0 ? plan.gallery.items[pages.shown[position - 1]] : nil, to: encoder)
        append(position + 1 < pages.count ? plan.gallery.items[pages.shown[position + 1]] : nil, to: encoder)
        encoder.append(plan.gridPagePath(ofOffset: offset))
        append(trail: plan.trail(to: pages.albumsByPath[plan.albumPath(of: item)]), to: encoder)
        let keywords = item.said.keywords
        encoder.append(int: keywords.count)
        for keyword in keywords { encoder.append(optional: pages.keywordPages[keyword.lowercased()]) }
        return PageFingerprint(digest: SHA256.hash(data: encoder.bytes))
    }
}

extension GalleryItem {
    /// Whether a page may show the item's place in the feed (`Photo 12`, for a photo with no
    /// title, or one behind a content warning): otherwise its key leaves the place out, so that a
    /// photo added or removed before it does not change its pages.
    var showsIndex: Bool {
        (said.title ?? "").escapableInTemplates.isEmpty || photo.contentWarning != nil
    }
}

/// The items' fingerprints by ``Photo/index``, in one array (a dictionary of 100,000 took three
/// times the memory, at the build's peak).
struct ItemKeys: Sendable {
    private var keys: [PageFingerprint]
    private static let none = PageFingerprint(words: (0, 0, 0, 0))

    init(count: Int) {
        keys = Array(repeating: Self.none, count: max(0, count))
    }

    /// Nil for an index no item has (a SHA-256 of all zeros stands for none).
    subscript(index: Int) -> PageFingerprint? {
        get { keys.indices.contains(index) && keys[index] != Self.none ? keys[index] : nil }
        set {
            guard keys.indices.contains(index) else { return }
            keys[index] = newValue ?? Self.none
        }
    }
}
