package import Foundation
import GalleryCore

/// One WebDAV folder's listing (a `PROPFIND` `Depth: 1` answer, `<d:multistatus>`): its files and
/// its subfolders, each by its address. The folder's own entry is left out, and so is any
/// address outside the tree the feed names (another host, or a path not under the feed's
/// folder: a server cannot lead the walk elsewhere).
package struct WebDAVListing: Sendable {
    package struct File: Sendable {
        package var url: URL
        /// The last part of the path, decoded.
        package var name: String
        package var etag: String?
    }

    package var files: [File] = []
    package var folders: [URL] = []
    /// Entries pointing outside the tree, not followed.
    package var outside: [String] = []

    static let dav = "DAV:"

    /// - Parameters:
    ///   - folder: the address asked (ending in `/`); `hrefs` resolve against it.
    ///   - root: the feed's folder, which no entry may leave.
    package init(data: Data, folder: URL, root: URL, name: String) throws(FeedError) {
        let tree = try MediaFeed.root(of: data, name: name)
        guard tree.namespace == Self.dav, tree.name == "multistatus" else {
            throw FeedError(
                .wrongShape, "\(name): the answer to PROPFIND is <\(tree.name)>, not a WebDAV <multistatus>")
        }
        let own = Self.decodedPath(folder)
        let rootPath = Self.decodedPath(root)
        for response in tree.children(Self.dav, "response") {
            guard let href = response.child(Self.dav, "href")?.text.trimmingCharacters(in: .whitespacesAndNewlines)
            else { continue }
            guard let url = URL(string: href, relativeTo: folder)?.absoluteURL else {
                // Not a URL (a raw space or a byte some servers leave unencoded): said, not read.
                outside.append(href)
                continue
            }
            // Properties found (200); a propstat of 404 lists those the server does not have.
            let found = response.children(Self.dav, "propstat").filter { propstat in
                propstat.child(Self.dav, "status")?.text.contains(" 200 ") ?? true
            }
            let properties = found.compactMap { $0.child(Self.dav, "prop") }
            func property(_ name: String) -> MediaFeed.Element? {
                properties.lazy.compactMap { $0.child(Self.dav, name) }.first
            }
            let isFolder = property("resourcetype")?.child(Self.dav, "collection") != nil
            let path = Self.decodedPath(url)
            // `..` or `.` however written (`%2E%2E`; `..;x`, which Tomcat and Jetty read as `..`
            // with a path parameter; `..\` on a server that takes `\` for `/`): a server would
            // read it as a step out.
            let segments = path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map { $0.prefix { $0 != ";" } }
            guard !segments.contains(where: { $0 == "." || $0 == ".." }),
                Self.origin(of: url) == Self.origin(of: folder), path.hasPrefix(rootPath)
            else {
                outside.append(href)
                continue
            }
            if path == own { continue }
            if isFolder {
                let address = url.absoluteString.hasSuffix("/") ? url : url.appendingPathComponent("")
                folders.append(address)
            } else {
                let name = path.split(separator: "/").last.map(String.init) ?? path
                files.append(
                    File(
                        url: url, name: name,
                        etag: (property("getetag")?.text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap {
                            $0.isEmpty ? nil : $0
                        }))
            }
        }
        files.sort { $0.name < $1.name }
        folders.sort { Self.decodedPath($0) < Self.decodedPath($1) }
    }

    /// Scheme, host and port, the port written even when it is the scheme's own (`:443`).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// The path, percent-decoded, with a `/` at the end for a folder compared with its entries.
    package static func decodedPath(_ url: URL) -> String {
        let raw = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        let decoded = raw.removingPercentEncoding ?? raw
        return decoded.hasSuffix("/") ? decoded : decoded + "/"
    }
}
