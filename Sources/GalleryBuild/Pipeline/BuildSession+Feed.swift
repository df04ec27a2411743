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
    /// The feed, the hash of its bytes (nil for a folder), and a warning when a stale copy of a
    /// remote feed stood in for it.
    func readFeed() async throws(BuildError) -> (FeedDocument, String?, String?) {
        let reader = FeedReader(
            configuration: FeedReader.Configuration(
                format: config.feed.format,
                fields: config.feed.fields,
                largestWidth: config.images.widths.max() ?? 1600,
                paging: config.feed.paging
            )
        )
        do {
            switch layout.feed {
            case .folder(let folder):
                let roots = config.followsSymlinks ? nil : [layout.siteDirectory, folder]
                return (try reader.document(fromFolder: folder, allowedRoots: roots), nil, nil)
            case .file(let file):
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

    /// A remote feed, every page of it (docs/feeds.md, "Pages"): each page cached and revalidated
    /// as an image is, so a feed that did not change costs one 304 a page. The hash is of the
    /// pages' hashes in order; the warnings name the pages a stale copy stood in for.
    private func readPages(from url: URL, reader: FeedReader) async throws -> (FeedDocument, String?, String?) {
        let credentials = http.configuration.credentials
        let pages = FeedPages(reader: reader, keep: { url in credentials?.stripped(url) ?? url })
        var hashes: [String] = []
        var warnings: [String] = []
        var document = try await pages.read(from: url) { page in
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
            }
        }
        let hash = hashes.count == 1 ? hashes[0] : sha256Hex(of: Data(hashes.joined(separator: "\n").utf8))
        return (document, hash, warnings.isEmpty ? nil : warnings.joined(separator: "; "))
    }
}
