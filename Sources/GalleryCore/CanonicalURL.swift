import Foundation

/// The identity of an image URL for deduplication: scheme and host lower-cased, the default port
/// and the fragment dropped, path and query kept exactly as written.
///
/// `HTTP://Example.com:80/a.jpg#x` and `http://example.com/a.jpg` are one image;
/// `?a=1&b=2` and `?b=2&a=1` are two, because a server may treat them differently.
public struct CanonicalURL: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let url: URL

    public init?(_ url: URL) {
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

    public init?(string: String) {
        guard let url = URL(string: string) else { return nil }
        self.init(url)
    }

    public var isFile: Bool { url.isFileURL }
    public var host: String { url.host ?? "" }
    public var description: String { url.absoluteString }

    public static func < (lhs: CanonicalURL, rhs: CanonicalURL) -> Bool {
        lhs.url.absoluteString < rhs.url.absoluteString
    }
}
