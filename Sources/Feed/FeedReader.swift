package import Foundation
package import GalleryCore
import GalleryJSON

/// The Feed stage: feed bytes (or a folder) in, ``FeedDocument`` out.
///
/// Detects the shape (JSONPlaceholder `/photos`, iTunes Search, JSON Feed 1.x, a plain
/// `[{title, imageUrl}]` list) or follows a ``FieldMapping``; resolves relative image URLs against
/// the feed's own location; skips, and reports by position, entries without a usable image URL.
package struct FeedReader: Sendable {
    package struct Configuration: Sendable {
        package var format: FeedFormat
        package var fields: FieldMapping?
        /// The largest width the site makes; iTunes artwork URLs are asked for at this size.
        package var largestWidth: Int
        /// Where a page's body says its next page is (`feed.paging.next`).
        package var paging: FeedPaging
        /// Which of a service's posts are read (`feed.visibility`).
        package var visibility: PostVisibility = .public
        /// What becomes of a service's sensitive posts (`feed.sensitive`).
        package var sensitive: SensitivePosts = .leaveOut
        /// The folders a local feed's image files must be in; nil for anywhere (`follow_symlinks`).
        package var localRoots: [URL]? = nil

        package init(
            format: FeedFormat = .auto, fields: FieldMapping? = nil, largestWidth: Int = 1600,
            paging: FeedPaging = FeedPaging(), visibility: PostVisibility = .public,
            sensitive: SensitivePosts = .leaveOut
        ) {
            self.format = format
            self.fields = fields
            self.largestWidth = largestWidth
            self.paging = paging
            self.visibility = visibility
            self.sensitive = sensitive
        }
    }

    package var configuration: Configuration

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Reads a JSON feed. `location` is where it came from: relative URLs resolve against it, and
    /// `name` is used in error messages (`feed.json:3:14: ...`). `firstIndex`: the position of
    /// the page's first entry in the whole feed (a later page's).
    package func document(from data: Data, location: URL, name: String, firstIndex: Int = 0) throws(FeedError)
        -> FeedDocument
    {
        if isXML(data) {
            let root = try MediaFeed.root(of: data, name: name)
            if BucketListing.isListing(root) {
                let listing = try BucketListing(root: root, location: location, name: name, firstIndex: firstIndex)
                var document = FeedDocument(photos: listing.photos)
                document.entryCount = listing.photos.count
                document.next = listing.next
                document.listedETags = listing.etags
                // Sorted as a folder feed is when the pages are joined (FeedPages).
                document.isListing = true
                return document
            }
            if readsAsFlickr(root, location: location) {
                guard FlickrAnswer.isAnswer(root) else {
                    throw FeedError(
                        .wrongShape, "\(name): feed.format is flickr, but this is not an answer of Flickr's API")
                }
                let answer = try FlickrAnswer(
                    root: root, location: location, name: name, largestWidth: configuration.largestWidth)
                var document = resolve(
                    answer.entries, shape: .list, title: answer.title, location: location, firstIndex: firstIndex)
                document.entryCount += answer.passedOver
                document.next = answer.next
                return document
            }
            let feed = try MediaFeed(root: root, name: name)
            var document = resolve(
                feed.entries, shape: .list, title: feed.title, location: location, firstIndex: firstIndex)
            document.next = feed.next.flatMap { URL(string: $0, relativeTo: location)?.absoluteURL }
            return document
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw FeedError(
                .invalidJSON,
                "invalid JSON: \(error.message)",
                location: SourceLocation(file: name, line: error.line, column: error.column)
            )
        }
        if let service = service(of: root) {
            let (entries, leftOut) = try service.entries(
                of: root, name: name, visibility: configuration.visibility, sensitive: configuration.sensitive)
            var document = resolve(entries, shape: .list, title: nil, location: location, firstIndex: firstIndex)
            document.next = service.next(in: root, location: location)
            document.postsLeftOut = leftOut
            return document
        }
        let shape = try self.shape(of: root, name: name)
        let entries = try entries(of: root, shape: shape, name: name)
        var document = resolve(
            entries, shape: shape, title: shape == .jsonFeed ? root["title"]?.text : nil, location: location,
            firstIndex: firstIndex)
        document.next = try next(in: root, shape: shape, location: location, name: name)
        return document
    }

    /// The next page a JSON page names: at `feed.paging.next` (a URL, or a cursor sent in
    /// `cursor_parameter` on this page's own URL), or a JSON Feed's `next_url`. Nil at the end:
    /// no such field, null, or empty.
    private func next(in root: JSONValue, shape: FeedShape, location: URL, name: String) throws(FeedError) -> URL? {
        let path = configuration.paging.next ?? (shape == .jsonFeed ? "next_url" : nil)
        guard let path, let value = root.value(atPath: path) else { return nil }
        let text: String
        switch value {
        case .null: return nil
        case .string(let string): text = string
        case .number: text = value.text ?? ""
        default:
            throw FeedError(.wrongShape, "\(name): \"\(path)\", where the next page is, is neither text nor a number")
        }
        if text.isEmpty { return nil }
        if let parameter = configuration.paging.cursorParameter {
            return FeedPages.url(location, setting: parameter, to: text)
        }
        guard let url = URL(string: text, relativeTo: location)?.absoluteURL,
            ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        else {
            throw FeedError(.wrongShape, "\(name): the next page at \"\(path)\" is \"\(text.prefix(200))\", not a URL")
        }
        return url
    }

    /// An RSS or Atom feed: asked for (`format: rss`), or found so by its first byte.
    private func isXML(_ data: Data) -> Bool {
        configuration.format == .rss || (configuration.format == .flickr && configuration.fields == nil)
            || (configuration.format == .auto && configuration.fields == nil
                && MediaFeed.looksLikeXML(data))
    }

    /// The feed's photos from its entries, and the entries skipped, by position.
    private func resolve(_ entries: [JSONValue], shape: FeedShape, title: String?, location: URL, firstIndex: Int)
        -> FeedDocument
    {
        let resolver = EntryResolver(
            location: location, allowsFiles: location.isFileURL, localRoots: configuration.localRoots)
        var photos: [Photo] = []
        var skipped: [FeedIssue] = []
        photos.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            switch resolver.photo(from: entry, index: firstIndex + index, shape: shape) {
            case .success(let photo): photos.append(photo)
            case .failure(let issue): skipped.append(issue)
            }
        }
        // JSONPlaceholder's numeric album id (`albumId: 3`) reads "Album 3"; its pages keep the
        // id's name.
        var albums: [[String]: AlbumNote] = [:]
        for photo in photos
        where shape == .jsonPlaceholder && photo.albumPath.count == 1 && albums[photo.albumPath] == nil {
            let name = photo.albumPath[0]
            if name.allSatisfy(\.isNumber) { albums[photo.albumPath] = AlbumNote(title: "Album \(name)") }
        }
        var document = FeedDocument(title: title, photos: photos, albums: albums, skipped: skipped)
        document.entryCount = entries.count
        return document
    }

    /// The photo service whose API answered, asked for (`format: mastodon`, `piwigo`) or
    /// recognised by its fields.
    private func service(of root: JSONValue) -> ServiceFeed? {
        guard configuration.fields == nil else { return nil }
        switch configuration.format {
        case .mastodon: return .mastodon
        case .piwigo: return .piwigo
        case .auto: return ServiceFeed.detect(root)
        default: return nil
        }
    }

    /// An XML answer read as Flickr's: asked for (`format: flickr`), or recognised.
    private func readsAsFlickr(_ root: MediaFeed.Element, location: URL) -> Bool {
        configuration.format == .flickr || FlickrAnswer.isRecognised(root, location: location)
    }

    /// Flickr's API address (`https://api.flickr.com/services/rest/?method=…`).
    package static func isFlickrAPI(_ url: URL) -> Bool { FlickrAnswer.isAPI(url) }

    /// The address to ask for a feed's first page at: a Flickr API address gains the extras
    /// and page size its reader uses (``FlickrAnswer/firstPage(_:)``); any other is as given.
    package func firstPage(_ url: URL) -> URL {
        guard configuration.fields == nil,
            configuration.format == .flickr || (configuration.format == .auto && FlickrAnswer.isAPI(url))
        else { return url }
        return FlickrAnswer.firstPage(url)
    }

    /// The name of the shape `data` would be read as (`JSON Feed`, `list`), for `gallerygen init`.
    package func shapeName(of data: Data, name: String) throws(FeedError) -> String {
        if isXML(data) {
            let root = try MediaFeed.root(of: data, name: name)
            if BucketListing.isListing(root) { return "S3 bucket listing" }
            if readsAsFlickr(root, location: URL(string: name) ?? URL(fileURLWithPath: name)) { return "Flickr API" }
            _ = try MediaFeed(root: root, name: name)
            return "RSS or Atom (Media RSS)"
        }
        guard let root = try? JSONParser.parse([UInt8](data)) else {
            throw FeedError(.invalidJSON, "\(name): not JSON")
        }
        if let service = service(of: root) { return service.name }
        return try shape(of: root, name: name).name
    }

    /// The shape to read `root` as: the configured one, or the one detected.
    private func shape(of root: JSONValue, name: String) throws(FeedError) -> FeedShape {
        if let fields = configuration.fields { return .mapped(fields) }
        switch configuration.format {
        case .jsonplaceholder: return .jsonPlaceholder
        case .itunes: return .iTunes(largestWidth: configuration.largestWidth)
        case .jsonfeed: return .jsonFeed
        case .list: return .list
        case .folder:
            throw FeedError(.wrongShape, "\(name): feed.format is folder, but feed.url names a file")
        case .rss:
            throw FeedError(.wrongShape, "\(name): feed.format is rss, but the feed is not XML")
        case .flickr:
            throw FeedError(.wrongShape, "\(name): feed.format is flickr, but the answer is not XML")
        case .mastodon, .piwigo:
            throw FeedError(
                .wrongShape, "\(name): feed.format is \(configuration.format.rawValue), but feed.fields is set")
        case .webdav:
            throw FeedError(
                .wrongShape,
                "\(name): feed.format is webdav, but feed.url names a file; give the folder's http(s) address")
        case .auto:
            guard let shape = FeedShape.detect(root, largestWidth: configuration.largestWidth) else {
                throw FeedError(
                    .unknownShape,
                    "\(name): not a feed shape gallerygen knows (JSONPlaceholder /photos, iTunes Search, "
                        + "JSON Feed, a list of {title, imageUrl}, or RSS or Atom); set feed.format, or map the fields "
                        + "with feed.fields in gallery.yml"
                )
            }
            return shape
        }
    }

    private func entries(of root: JSONValue, shape: FeedShape, name: String) throws(FeedError) -> [JSONValue] {
        let path = shape.itemsPath
        guard let items = root.value(atPath: path)?.arrayValue else {
            let place = path.isEmpty ? "the top level" : "\"\(path)\""
            throw FeedError(.wrongShape, "\(name): expected an array of entries at \(place) for a \(shape.name) feed")
        }
        return items
    }
}
