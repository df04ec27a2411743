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
                largestWidth: config.images.widths.max() ?? 1600
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
                guard let source = CanonicalURL(url) else {
                    throw BuildError(.feed, "\(url.absoluteString): not a usable feed URL")
                }
                let (data, original) = try await http.document(for: source)
                return (
                    try reader.document(from: data, location: url, name: url.absoluteString), original.sha256,
                    original.warning.map { "feed \(url.absoluteString): \($0)" }
                )
            }
        } catch let error as BuildError {
            throw error
        } catch is CancellationError {
            throw .interrupted
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }
}
