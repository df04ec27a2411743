import AsyncHTTPClient
import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Synchronization

/// The feed stage.
extension BuildSession {
    /// The feed, the hash of its bytes (for a folder, its path: its stamps are the build's local
    /// inputs), and a warning when a stale copy of a
    /// remote feed stood in for it.
    func readFeed() async throws(BuildError) -> (FeedDocument, String?, String?) {
        // What an earlier build of this process (`serve`) was told of its listings is not this one's.
        http.forgetListings()
        let reader = FeedReader(
            configuration: FeedReader.Configuration(
                format: config.feed.format,
                fields: config.feed.fields,
                largestWidth: config.images.widths.max() ?? 1600,
                paging: config.feed.paging,
                visibility: config.feed.visibility,
                sensitive: config.feed.sensitive
            )
        )
        do {
            switch layout.feed {
            case .folder(let folder):
                let roots = config.followsSymlinks ? nil : [layout.siteDirectory, folder]
                // The walk blocks (it stats every entry, on every core): not on a cooperative thread.
                let document = try await offTheCooperativeThreads { () throws(FeedError) in
                    try reader.document(fromFolder: folder, allowedRoots: roots)
                }
                return (document, Self.folderFeedKey(folder), nil)
            case .file(let file):
                var reader = reader
                if !config.followsSymlinks {
                    reader.configuration.localRoots = [layout.siteDirectory, file.deletingLastPathComponent()]
                }
                let data: Data
                do {
                    data = try PlainFile.read(file)
                } catch {
                    throw BuildError(.feed, "\(relativeName(of: file)): cannot read the feed: it \(error)")
                }
                return (
                    try reader.document(from: data, location: file, name: relativeName(of: file)), sha256Hex(of: data),
                    nil
                )
            case .remote(let url) where config.feed.format == .webdav:
                return try await readWebDAV(from: url)
            case .remote(let url):
                return try await readPages(from: url, reader: reader)
            }
        } catch let error as BuildError {
            throw error
        } catch is CancellationError {
            throw .interrupted
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }

    /// A WebDAV folder (docs/feeds.md, "A WebDAV folder"): `PROPFIND` a folder at a time down
    /// the tree, the images of each folder then its subfolders as albums, in name order, as a
    /// folder feed is read. Each folder listed counts as a page against `max_pages`.
    private func readWebDAV(from address: URL) async throws -> (FeedDocument, String?, String?) {
        let root = address.absoluteString.hasSuffix("/") ? address : address.appendingPathComponent("")
        let paging = config.feed.paging
        var document = FeedDocument(photos: [])
        var pending: [(url: URL, path: [String])] = [(root, [])]
        var seen: Set<String> = []
        var hashes: [String] = []
        var folders = 0
        while let (folder, path) = pending.popLast() {
            guard seen.insert(WebDAVListing.decodedPath(folder)).inserted else { continue }
            folders += 1
            guard folders <= paging.maxPages else {
                throw BuildError(
                    .feed,
                    "\(folder.absoluteString): folder \(folders) of the WebDAV feed is over feed.paging.max_pages "
                        + "(\(paging.maxPages)); raise it in gallery.yml if the tree really has more folders")
            }
            let data = try await http.propfind(folder)
            hashes.append(sha256Hex(of: data))
            let listing = try WebDAVListing(data: data, folder: folder, root: root, name: folder.absoluteString)
            for file in listing.files where FeedReader.isMediaName(file.name) && !file.name.hasPrefix(".") {
                guard let source = CanonicalURL(file.url) else { continue }
                if let etag = file.etag { document.listedETags[source.url] = etag }
                document.photos.append(
                    FeedReader.photo(
                        ofFile: file.name, id: (path + [file.name]).joined(separator: "/"), source: file.url,
                        albumPath: path, index: document.photos.count))
                guard document.photos.count <= paging.maxEntries else {
                    throw BuildError(
                        .feed,
                        "\(folder.absoluteString): the WebDAV feed passes feed.paging.max_entries "
                            + "(\(paging.maxEntries)) photos here; raise it in gallery.yml if it is really that large")
                }
            }
            for outside in listing.outside {
                document.warnings.append(
                    "\(folder.absoluteString): the listing names \"\(outside.prefix(200))\", outside the feed's folder; "
                        + "not read")
            }
            // Pushed last first: the first subfolder is listed next, its own subfolders before the
            // second (a folder feed's order).
            for subfolder in listing.folders.reversed() {
                let name = WebDAVListing.decodedPath(subfolder).split(separator: "/").last.map(String.init) ?? ""
                if name.hasPrefix(".") { continue }
                guard path.count < FeedReader.folderDepthLimit else {
                    document.skipped.append(
                        FeedIssue(
                            index: document.photos.count + document.skipped.count,
                            message: "\((path + [name]).joined(separator: "/")): deeper than "
                                + "\(FeedReader.folderDepthLimit) folders; not read"))
                    continue
                }
                pending.append((subfolder, path + [name]))
            }
        }
        document.entryCount = document.photos.count
        noteListedETags(of: document)
        return (document, sha256Hex(of: Data(hashes.joined(separator: "\n").utf8)), nil)
    }

    /// A listing's ETags vouch for the cached copies that have them: no request for those.
    private func noteListedETags(of document: FeedDocument) {
        var listed: [CanonicalURL: String] = [:]
        for (url, etag) in document.listedETags {
            if let source = CanonicalURL(url) { listed[source] = etag }
        }
        if !listed.isEmpty { http.noteListedETags(listed) }
    }

    /// A remote feed, every page of it (docs/feeds.md, "Pages"): each page cached and revalidated
    /// as an image is, so a feed that did not change costs one 304 a page. The hash is of the
    /// pages' hashes in order; the warnings name the pages a stale copy stood in for.
    private func readPages(from url: URL, reader: FeedReader) async throws -> (FeedDocument, String?, String?) {
        let credentials = http.configuration.credentials
        let pages = FeedPages(reader: reader, keep: { url in credentials?.stripped(url) ?? url })
        var hashes: [String] = []
        var warnings: [String] = []
        var document = try await pages.read(from: reader.firstPage(url)) { page in
            guard let source = CanonicalURL(page) else {
                throw BuildError(.feed, "\(page.absoluteString): not a usable feed URL")
            }
            let (data, original, link) = try await http.document(for: source)
            hashes.append(original.sha256)
            if let warning = original.warning { warnings.append("feed \(page.absoluteString): \(warning)") }
            return (data, link)
        }
        if let credentials {
            // A server that puts the secret in its image URLs: the photos keep them without it
            // (it is added again to each request to the feed's origin).
            for index in document.photos.indices {
                document.photos[index].source = credentials.stripped(document.photos[index].source)
                document.photos[index].link = document.photos[index].link.map(credentials.stripped)
            }
        }
        noteListedETags(of: document)
        let hash = hashes.count == 1 ? hashes[0] : sha256Hex(of: Data(hashes.joined(separator: "\n").utf8))
        return (document, hash, warnings.isEmpty ? nil : warnings.joined(separator: "; "))
    }
}
