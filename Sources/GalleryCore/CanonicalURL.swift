import Foundation

/// The identity of an image URL for deduplication: scheme and host lower-cased, the default port
/// and the fragment dropped, path and query kept exactly as written.
///
/// `HTTP://Example.com:80/a.jpg#x` and `http://example.com/a.jpg` are one image;
/// `?a=1&b=2` and `?b=2&a=1` are two, because a server may treat them differently.
package struct CanonicalURL: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let url: URL

    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        if scheme == "file" {
            self.url = url.standardizedFileURL
            return
        }
        guard scheme == "http" || scheme == "https",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        if components.port == (scheme == "http" ? 80 : 443) { components.port = nil }
        components.fragment = nil
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        guard let canonical = components.url else { return nil }
        self.url = canonical
    }

    package init?(string: String) {
        guard let url = URL(string: string) else { return nil }
        self.init(url)
    }

    package var isFile: Bool { url.isFileURL }
    package var host: String { url.host ?? "" }
    package var description: String { url.absoluteString }

    package static func < (lhs: CanonicalURL, rhs: CanonicalURL) -> Bool {
        lhs.url.absoluteString < rhs.url.absoluteString
    }
}
