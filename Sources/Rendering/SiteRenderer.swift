import Crypto
package import Foundation
import GalleryConcurrency
package import GalleryCore
import Mustache

/// The Rendering stage: a ``Gallery`` in, the site's pages and theme assets out.
///
/// Pages hold `pageSize` photos each (`index.html`, `page-2.html`, ...); a feed with albums also
/// gets album pages (`album-<name>.html`, `album-<name>-2.html`), listed in every page's header,
/// or on an `albums.html` page when there are more than a dozen. All links are relative, so the
/// site works from any folder. Feed text is escaped by the templates; the first row of each page
/// loads eagerly with high priority, the rest lazily.
package struct SiteRenderer: Sendable {
    package struct Configuration: Sendable, Encodable {
        /// A theme folder (`page.mustache`, `photo.mustache`, `assets/`); nil for the built-in one.
        package var themeDirectory: URL?
        package var pageSize: Int
        /// Photos in the widest row of the theme's grid: they load eagerly.
        package var eagerCount: Int
        package var grid: GridStyle
        /// Photo pages show what the camera recorded (`exif: true`).
        package var showsCameraDetails: Bool
        /// Each keyword photos carry gets a page, linked from theirs (`keyword_pages`).
        package var keywordPages: Bool
        /// How much of where photos were taken their pages show (`location:`).
        package var location: LocationPrecision
        /// What the albums are (`albums:`).
        package var albums: AlbumSource
        /// Which tiles show their title (`tile_captions:`).
        package var tileCaptions: TileCaptions
        /// The pages' language and strings (`language:`, `strings:`).
        package var language: SiteLanguage

        package init(
            themeDirectory: URL? = nil, pageSize: Int = 60, eagerCount: Int = 4, grid: GridStyle = .justified,
            showsCameraDetails: Bool = false, keywordPages: Bool = true, location: LocationPrecision = .off,
            albums: AlbumSource = .feed, tileCaptions: TileCaptions = .auto, language: SiteLanguage = .english
        ) {
            self.language = language
            self.themeDirectory = themeDirectory
            self.pageSize = pageSize
            self.eagerCount = eagerCount
            self.grid = grid
            self.showsCameraDetails = showsCameraDetails
            self.keywordPages = keywordPages
            self.location = location
            self.albums = albums
            self.tileCaptions = tileCaptions
        }
    }

    /// Templates a theme may leave out: the built-in theme's are used instead, so that a theme
    /// written before they existed still builds (with photo pages and feeds in the built-in look).
    static let optionalTemplates = ["photo-page", "atom", "jsonfeed", "keywords"]

    private let configuration: Configuration
    private let templates: Templates
    private let theme: URL
    /// By template name: what a page's fingerprint starts with (``PageFingerprint``).
    private let salt: [String: [UInt8]]
    /// The theme's templates of tiles and photo pages that never read `warning`: they would show
    /// a photo behind a content warning without it.
    private let templatesWithoutWarnings: [String]

    package init(configuration: Configuration) async throws(RenderingError) {
        guard let theme = configuration.themeDirectory ?? Self.builtInTheme else {
            throw RenderingError(
                .missingTemplate,
                "the built-in theme is missing beside the gallerygen binary; set `templates` in gallery.yml")
        }
        guard FileManager.default.fileExists(atPath: theme.appendingPathComponent("page.mustache").path) else {
            throw RenderingError(.missingTemplate, "\(theme.path): no page.mustache in the theme folder")
        }
        // Hashed before they are read: a template saved in between makes the next build render
        // again, never a page recorded under a template it was not made with. The built-in theme
        // counts too, since it lends the templates a theme leaves out.
        let builtInFolders = Self.builtInTheme.map { $0.standardized != theme.standardized ? [$0] : [] } ?? []
        self.salt = Self.salts(templates: ["page", "photo-page", "sources"], folders: [theme] + builtInFolders)
        do {
            var library = try await MustacheLibrary(directory: theme.path)
            let missing = Self.optionalTemplates.filter { library.getTemplate(named: $0) == nil }
            if !missing.isEmpty, let builtIn = Self.builtInTheme, builtIn.standardized != theme.standardized {
                let defaults = try await MustacheLibrary(directory: builtIn.path)
                for name in missing {
                    if let template = defaults.getTemplate(named: name) { library.register(template, named: name) }
                }
            }
            self.templates = Templates(library: library)
        } catch let error as MustacheLibrary.ParserError {
            throw RenderingError(
                .templateSyntax, "template error: \(error.error)",
                location: SourceLocation(
                    file: theme.appendingPathComponent(error.filename).path, line: error.context.lineNumber,
                    column: error.context.columnNumber))
        } catch {
            throw RenderingError(
                .unreadable, "\(theme.path): cannot load the theme", underlying: error)
        }
        self.configuration = configuration
        self.theme = theme
        self.templatesWithoutWarnings = ["photo", "photo-page"].map { "\($0).mustache" }.filter { file in
            guard builtInFolders.isEmpty == false,
                let text = FileManager.default.contents(atPath: theme.appendingPathComponent(file).path)
            else { return false }
            return !String(decoding: text, as: UTF8.self).contains("warning")
        }
    }

    /// Each template's start of a fingerprint: the SHA-256 of its name, of every template the
    /// theme's folders hold (a page's partials and its tiles' template are all in it), and of
    /// the gallerygen binary that renders them (a rebuilt gallerygen may render differently).
    private static func salts(templates names: [String], folders: [URL]) -> [String: [UInt8]] {
        var common = SHA256()
        common.update(data: Array("gallerygen pages 1 \(GalleryVersion.current)\n".utf8))
        if let executable = Bundle.main.executableURL, let status = FileStatus(executable) {
            common.update(data: Array("\(status.size) \(status.modifiedNanoseconds) \(status.inode)\n".utf8))
        }
        for folder in folders {
            let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".mustache") }.sorted()
            for file in files {
                let contents = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path) ?? Data()
                common.update(data: Array("\(folder.path)/\(file) \(contents.count)\n".utf8))
                common.update(data: contents)
            }
        }
        var salts: [String: [UInt8]] = [:]
        for name in names {
            var hash = common
            hash.update(data: Array("\n\(name)".utf8))
            salts[name] = Array(hash.finalize())
        }
        return salts
    }

    /// The theme shipped with gallerygen, found beside the executable (``BuiltInTheme``).
    package static var builtInTheme: URL? { BuiltInTheme.folder }

    /// Every page of the site plus the theme's assets, in a stable order. Pages are rendered on
    /// every core.
    package func render(_ gallery: Gallery) async throws(RenderingError) -> [RenderedFile] {
        let collected = Collected()
        do {
            try await render(gallery, chunk: Int.max, reusing: nil) { (chunk) throws(Never) in
                collected.append(chunk.files)
            }
        } catch {
            switch error {
            case .theme(let error): throw error
            }
        }
        return collected.files
    }

    /// What the previous build left: the pages still in place as it wrote them, and what it made
    /// them all from.
    package struct PageReuse: Sendable {
        /// The fingerprint of everything the previous build's pages were made from
        /// (``sourcesFingerprint(of:)``), when known.
        package var sources: PageFingerprint?
        /// The fingerprint recorded for the page at a path, when its file is still as the
        /// previous build left it.
        package var recorded: @Sendable (_ path: String) -> PageFingerprint?

        package init(sources: PageFingerprint?, recorded: @escaping @Sendable (_ path: String) -> PageFingerprint?) {
            self.sources = sources
            self.recorded = recorded
        }

        /// True when the page at `path` is in place as `fingerprint` makes it.
        func isCurrent(_ path: String, _ fingerprint: PageFingerprint) -> Bool {
            recorded(path) == fingerprint
        }
    }

    /// Renders the site in chunks of at most `chunk` pages, each handed to `sink` before the next
    /// is rendered, so that a gallery of 100,000 photos never holds all its pages at once. A grid
    /// or photo page that `reusing` says is in place as it would be rendered is handed over as
    /// unchanged instead; when the whole gallery is what the previous build rendered (the same
    /// sources), a page still in place is not even built to be compared. Returns the sources'
    /// fingerprint; throws the theme's ``RenderingError``, or what `sink` threw (which stops the
    /// rendering), each as itself.
    @discardableResult
    package func render<SinkError: Error>(
        _ gallery: Gallery, chunk: Int, reusing reuse: PageReuse?,
        into sink: (RenderedChunk) async throws(SinkError) -> Void
    ) async throws(RenderFailure<SinkError>) -> PageFingerprint {
        func hand(_ chunk: RenderedChunk) async throws(RenderFailure<SinkError>) {
            do { try await sink(chunk) } catch { throw .sink(error) }
        }
        guard templates.library.getTemplate(named: "page") != nil else {
            throw .theme(RenderingError(.missingTemplate, "\(theme.path): the theme has no page template"))
        }
        if !templatesWithoutWarnings.isEmpty {
            let warned = gallery.items.lazy.filter { $0.photo.contentWarning != nil }.count
            if warned > 0 {
                throw .theme(
                    RenderingError(
                        .missingTemplate,
                        "\(theme.path): \(templatesWithoutWarnings.joined(separator: " and ")) show no content warning "
                            + "(`{{#warning}}`, docs/themes.md), and \(warned) \(warned == 1 ? "photo is" : "photos are") "
                            + "behind one (`feed.sensitive: behind_warning`): they would be published without it"))
            }
        }
        let plan = PagePlan(
            gallery: gallery, pageSize: max(1, configuration.pageSize), keywordPages: configuration.keywordPages,
            albums: configuration.albums, language: configuration.language)
        let language = configuration.language
        let eagerCount = configuration.eagerCount
        let grid = configuration.grid
        let tileCaptions = configuration.tileCaptions
        let slugs = await PhotoSlugs.slugs(of: gallery.items)
        let templates = templates
        let itemKeys = await PageKeys.itemFingerprints(of: gallery.items)
        let keys = PageKeys(plan: plan, slugs: slugs, items: itemKeys, configuration: configuration, salt: salt)
        let sources = await sourcesFingerprint(of: gallery, slugs: slugs, itemKeys: itemKeys)
        // Same sources: every page the previous build left in place is this build's page.
        let kept = reuse?.sources == sources ? reuse?.recorded : nil
        // Grid pages hold 60 tiles each: a chunk of them weighs as much as 60 photo pages.
        let gridChunk = max(1, chunk / 60)
        for start in stride(from: 0, to: plan.pages.count, by: gridChunk) {
            let part = Array(plan.pages[start..<min(start + gridChunk, plan.pages.count)])
            try await hand(
                RenderedChunk(
                    await part.concurrentMap { page in
                        if let fingerprint = kept?(page.path) { return .unchanged(page.path, fingerprint) }
                        // In place with the key it would have: not built.
                        let fingerprint = keys.grid(page)
                        if reuse?.isCurrent(page.path, fingerprint) == true {
                            return .unchanged(page.path, fingerprint)
                        }
                        var photos = page.items.enumerated().map { offset, item in
                            var tile = PhotoViewModel(
                                for: item, slug: slugs[item.photo.index], eager: offset < eagerCount, grid: grid,
                                captions: tileCaptions, language: language)
                            tile.wave = PhotoViewModel.wave(at: offset)
                            return tile
                        }
                        if grid == .justified {
                            // A tile without an image is drawn 4:3 (photo.mustache).
                            let aspects = photos.map { $0.image.flatMap { Double($0.aspect) } ?? 1.3333 }
                            let captions = photos.contains { $0.caption != nil }
                            for offset in TileLayout.leads(aspects: aspects, after: eagerCount, captions: captions)
                            where photos[offset].warning == nil {
                                photos[offset].image?.lead = true
                            }
                        }
                        var model = plan.model(for: page, photos: photos, grid: grid)
                        // A tile's markup is its own template's, then set into the page's.
                        for index in model.photos.indices {
                            let html = templates.render(model.photos[index], "photo") ?? ""
                            model.photos[index].html = html.hasSuffix("\n") ? String(html.dropLast()) : html
                        }
                        return .rendered(
                            RenderedFile(
                                path: page.path, contents: Array((templates.render(model, "page") ?? "").utf8),
                                fingerprint: fingerprint))
                    }))
        }
        if plan.hasAlbumsPage {
            guard let html = templates.render(plan.albumsPageModel(grid: grid), "albums") else {
                throw .theme(
                    RenderingError(
                        .missingTemplate,
                        "\(theme.path): the theme has no albums.mustache, needed for more than \(PagePlan.inlineAlbumLimit) albums"
                    ))
            }
            try await hand(
                RenderedChunk(files: [RenderedFile(path: PagePlan.albumsPagePath, contents: Array(html.utf8))]))
        }
        if plan.hasKeywordsPage {
            guard let html = templates.render(plan.keywordsPageModel(), "keywords") else {
                throw .theme(
                    RenderingError(
                        .missingTemplate, "\(theme.path): no keywords.mustache, and no built-in one to use"))
            }
            try await hand(
                RenderedChunk(files: [RenderedFile(path: PagePlan.keywordsPagePath, contents: Array(html.utf8))]))
        }
        try await photoPages(
            plan: plan, slugs: slugs, keys: keys, chunk: chunk, reusing: reuse, kept: kept, into: hand)
        let last: [RenderedFile]
        do {
            last = try feeds(gallery: gallery, plan: plan, slugs: slugs) + assets()
        } catch {
            throw .theme(error)
        }
        try await hand(RenderedChunk(files: last))
        return sources
    }

    /// What every grid and photo page is made from: the templates and binary (the salt), the
    /// renderer's settings, the gallery's text and every stored value of every item, read through
    /// their synthesized `Encodable` conformances. Items are fingerprinted 1,024 at a time on
    /// every core, then the parts together.
    /// With `itemKeys` (``PageKeys/itemFingerprints(of:)``), the items' parts are made of
    /// their keys, in the gallery's order.
    func sourcesFingerprint(
        of gallery: Gallery, slugs: [Int: String]? = nil, itemKeys: ItemKeys? = nil
    ) async -> PageFingerprint {
        let items = gallery.items
        let size = 1024
        let parts = await Array(stride(from: 0, to: items.count, by: size)).concurrentMap { start in
            let encoder = FingerprintEncoder()
            for item in items[start..<min(start + size, items.count)] {
                if let key = itemKeys?[item.photo.index] {
                    encoder.append(int: item.photo.index)
                    encoder.append(fingerprint: key)
                } else {
                    item.writeFingerprint(to: encoder)
                }
            }
            return PageFingerprint(digest: SHA256.hash(data: encoder.bytes))
        }
        let header = Sources(
            configuration: configuration, title: gallery.title, introHTML: gallery.introHTML,
            baseURL: gallery.baseURL,
            albums: gallery.albums.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value),
            albumPaths: gallery.albums.keys.sorted { $0.lexicographicallyPrecedes($1) }, itemCount: items.count,
            parts: parts.map(\.description),
            // The pages' names, made from the items by the system's transliteration: a new one
            // (another ICU) renames pages without changing an item.
            slugs: (slugs ?? [:]).sorted { $0.key < $1.key }.map(\.value))
        return PageFingerprint.of(header, path: "", salt: salt["sources"] ?? [])
    }

    /// The gallery's own values and its items' fingerprints, by part.
    private struct Sources: Encodable {
        var configuration: Configuration
        var title: String
        var introHTML: String
        var baseURL: String?
        var albums: [AlbumDetails]
        var albumPaths: [[String]]
        var itemCount: Int
        var parts: [String]
        var slugs: [String]
    }

    /// Files handed over chunk by chunk, kept (``render(_:)``).
    private final class Collected: @unchecked Sendable {
        var files: [RenderedFile] = []

        func append(_ more: [RenderedFile]) {
            files += more
        }
    }

    /// `photos/<slug>.html` for every photo with an image, in gallery order, `chunk` at a time.
    private func photoPages<SinkError: Error>(
        plan: PagePlan, slugs: [Int: String], keys: PageKeys, chunk: Int, reusing reuse: PageReuse?,
        kept: (@Sendable (String) -> PageFingerprint?)?,
        into sink: (RenderedChunk) async throws(RenderFailure<SinkError>) -> Void
    ) async throws(RenderFailure<SinkError>) {
        guard templates.library.getTemplate(named: "photo-page") != nil else {
            throw .theme(
                RenderingError(.missingTemplate, "\(theme.path): no photo-page.mustache, and no built-in one to use"))
        }
        let pages = plan.photoPages(
            slugs: slugs, showsCameraDetails: configuration.showsCameraDetails, location: configuration.location)
        let templates = templates
        let size = max(1, chunk)
        for start in stride(from: 0, to: pages.count, by: size) {
            let positions = Array(start..<min(start + size, pages.count))
            try await sink(
                RenderedChunk(
                    await positions.concurrentMap { position in
                        if let kept, case let path = pages.path(at: position), let fingerprint = kept(path) {
                            return .unchanged(path, fingerprint)
                        }
                        let fingerprint = keys.photo(at: position, of: pages)
                        if let reuse, case let path = pages.path(at: position), reuse.isCurrent(path, fingerprint) {
                            return .unchanged(path, fingerprint)
                        }
                        let (path, model) = pages.page(at: position)
                        return .rendered(
                            RenderedFile(
                                path: path, contents: Array((templates.render(model, "photo-page") ?? "").utf8),
                                fingerprint: fingerprint))
                    }))
        }
    }

    /// The Atom feed and the JSON Feed; with `base_url`, the sitemap.
    private func feeds(gallery: Gallery, plan: PagePlan, slugs: [Int: String]) throws(RenderingError)
        -> [RenderedFile]
    {
        let model = FeedViewModel(gallery: gallery, slugs: slugs, language: configuration.language)
        var files: [RenderedFile] = []
        for (template, path) in [("atom", FeedViewModel.atomPath), ("jsonfeed", FeedViewModel.jsonFeedPath)] {
            guard let text = templates.render(model, template) else {
                throw RenderingError(
                    .missingTemplate, "\(theme.path): no \(template).mustache, and no built-in one to use")
            }
            files.append(RenderedFile(path: path, contents: Array(text.utf8)))
        }
        if let base = gallery.baseDirectory {
            let photoPages = gallery.items.compactMap { item -> Sitemap.PhotoPage? in
                guard let slug = slugs[item.photo.index], let image = item.image,
                    let rendition = PhotoPageViewModel.cardRendition(of: image)
                else { return nil }
                // Behind a content warning, the page alone: an image search would show the photo
                // without it.
                if item.photo.contentWarning != nil {
                    return Sitemap.PhotoPage(page: PhotoSlugs.pagePath(of: slug), image: nil, clip: nil)
                }
                let clip = ClipViewModel(image: image, prefix: "").flatMap { clip in
                    clip.largestMP4.map { mp4 in
                        Sitemap.Clip(
                            file: mp4.src, seconds: ClipViewModel.seconds(image.video?.duration ?? 0),
                            title: item.displayTitle(in: configuration.language),
                            description: item.altText(in: configuration.language))
                    }
                }
                return Sitemap.PhotoPage(page: PhotoSlugs.pagePath(of: slug), image: rendition.path, clip: clip)
            }
            let gridPages =
                plan.pages.map(\.path) + (plan.hasAlbumsPage ? [PagePlan.albumsPagePath] : [])
                + (plan.hasKeywordsPage ? [PagePlan.keywordsPagePath] : [])
            let xml = Sitemap.xml(base: base, gridPages: gridPages, photoPages: photoPages)
            files.append(RenderedFile(path: Sitemap.path, contents: Array(xml.utf8)))
        }
        return files
    }

    /// The theme's `assets/` folder, copied as it is.
    private func assets() throws(RenderingError) -> [RenderedFile] {
        let folder = theme.appendingPathComponent("assets")
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [RenderedFile] = []
        for case let relative as String in enumerator.sorted(by: { "\($0)" < "\($1)" }) {
            let source = folder.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory),
                !isDirectory.boolValue,
                !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
            else { continue }
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw RenderingError(.unreadable, "\(source.path): cannot read the theme asset")
            }
            files.append(RenderedFile(path: "assets/\(relative)", contents: [UInt8](data)))
        }
        return files
    }
}

/// The theme's templates, rendered by swift-mustache with typed view models (a gallery of
/// 10,000 photos renders in BENCHMARKS.md's "render" figure; the 1 s target needs no engine of
/// our own).
private struct Templates: Sendable {
    let library: MustacheLibrary

    func render(_ model: some MustacheParent & Sendable, _ name: String) -> String? {
        library.render(model, withTemplate: name)
    }
}

/// Why a render stopped: the theme could not be used, or the sink the pages were handed to threw.
package enum RenderFailure<SinkError: Error>: Error {
    case theme(RenderingError)
    case sink(SinkError)
}
