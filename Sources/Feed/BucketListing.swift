import Foundation
import GalleryCore

/// One page of an S3 bucket's listing (`ListObjectsV2`, `<ListBucketResult>`), read as a feed:
/// each image object a photo, titled by its file name, in an album named by the folders of its
/// key below the listed prefix (`2019/Iceland/falls.jpg`: album `2019 / Iceland`), as a folder
/// feed reads a folder. Each object's URL is the bucket's (the listing's address with the key
/// in place of its query), loaded, cached and revalidated by its ETag as any image; the next page
/// is the listing's address with `continuation-token` set when the listing says it is
/// truncated. Objects that are no image (by extension), and folder markers, are passed over.
struct BucketListing {
    static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

    var photos: [Photo] = []
    /// Each photo's ETag, by its URL.
    var etags: [URL: String] = [:]
    var next: URL?
    /// Keys passed over: not images.
    var passedOver = 0

    static func isListing(_ root: MediaFeed.Element) -> Bool {
        root.name == "ListBucketResult" && (root.namespace == namespace || root.namespace.isEmpty)
    }

    init(root: MediaFeed.Element, location: URL, name: String, firstIndex: Int) throws(FeedError) {
        let namespace = root.namespace
        func text(_ element: MediaFeed.Element, _ child: String) -> String? {
            element.child(namespace, child)?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let prefix = text(root, "Prefix") ?? ""
        guard var base = URLComponents(url: location, resolvingAgainstBaseURL: true) else {
            throw FeedError(.wrongShape, "\(name): not a bucket's address")
        }
        base.percentEncodedQuery = nil
        base.fragment = nil
        // Path-style (`/bucket`) or virtual-hosted (`/`): the keys go below the listing's path.
        let folder = base.percentEncodedPath.hasSuffix("/") ? base.percentEncodedPath : base.percentEncodedPath + "/"
        for object in root.children(namespace, "Contents") {
            guard let key = text(object, "Key"), !key.isEmpty else { continue }
            let relative = key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : key
            var parts = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            let segments = key.split(separator: "/", omittingEmptySubsequences: false)
            guard let file = parts.popLast(), !key.hasSuffix("/"), FeedReader.isMediaName(file),
                !segments.contains(where: { $0 == "." || $0 == ".." }),
                !file.hasPrefix("."), !parts.contains(where: { $0.hasPrefix(".") })
            else {
                passedOver += 1
                continue
            }
            var objectURL = base
            objectURL.percentEncodedPath = folder + key.percentEncodedStrictly(keepingSlash: true)
            guard let url = objectURL.url else {
                passedOver += 1
                continue
            }
            let photo = FeedReader.photo(
                ofFile: file, id: relative, source: url, albumPath: parts, index: firstIndex + photos.count)
            if let etag = text(object, "ETag"), !etag.isEmpty { etags[url] = etag }
            photos.append(photo)
        }
        guard text(root, "IsTruncated")?.lowercased() == "true" else { return }
        if let token = text(root, "NextContinuationToken"), !token.isEmpty {
            next = FeedPages.url(location, setting: "continuation-token", to: token)
        } else if let marker = text(root, "NextMarker")
            ?? root.children(namespace, "Contents").last.flatMap({
                text($0, "Key")
            })
        {
            // ListObjects (v1): the next page starts after the last key.
            next = FeedPages.url(location, setting: "marker", to: marker)
        } else {
            throw FeedError(.wrongShape, "\(name): the listing says it is truncated, but names no next page")
        }
    }
}
