package import Foundation

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
            // A path with no `.`, `..` or empty part is standard already: standardizing 100,000
            // photos' paths took a quarter of a folder's rebuild.
            self.url = url.baseURL == nil && url.path.isStandardPath ? url : url.standardizedFileURL
            return
        }
        guard scheme == "http" || scheme == "https" else { return nil }
        if url.baseURL == nil, Self.isCanonical(url.absoluteString) {
            self.url = url
            return
        }
        guard let canonical = Self.canonicalizing(url) else { return nil }
        self.url = canonical
    }

    /// The canonical form of a web URL, made through URLComponents (several microseconds: a
    /// second of a 100,000-photo build when every URL took this way).
    static func canonicalizing(_ url: URL) -> URL? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        if components.port == (scheme == "http" ? 80 : 443) { components.port = nil }
        components.fragment = nil
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        return components.url
    }

    /// True when `text` is already canonical, as ``canonicalizing(_:)`` would leave it: `http` or
    /// `https` in lower case, a host of lower-case letters, digits, dots and hyphens, no user,
    /// a port only when it is not the scheme's own (written without leading zeros), a path, and
    /// then only characters a URL carries as they are (`%` with two hex digits), no fragment.
    /// Anything else, however harmless, takes the slow way (CanonicalURLTests hold the two to
    /// the same answers).
    static func isCanonical(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index: Int
        let defaultPort: Int
        if bytes.starts(with: Self.http) {
            index = Self.http.count
            defaultPort = 80
        } else if bytes.starts(with: Self.https) {
            index = Self.https.count
            defaultPort = 443
        } else {
            return false
        }
        let hostStart = index
        while index < bytes.count, Self.isHostByte(bytes[index]) { index += 1 }
        guard index > hostStart, index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            var port = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), port <= 65535 {
                port = port * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index > portStart, bytes[portStart] != UInt8(ascii: "0"), port <= 65535, port != defaultPort,
                index < bytes.count
            else { return false }
        }
        guard bytes[index] == UInt8(ascii: "/") else { return false }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, Self.isHexDigit(bytes[index + 1]), Self.isHexDigit(bytes[index + 2])
                else { return false }
                index += 3
                continue
            }
            guard Self.isPlainByte(byte) else { return false }
            index += 1
        }
        return true
    }

    private static let http = Array("http://".utf8)
    private static let https = Array("https://".utf8)

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// RFC 3986's unreserved and sub-delimiter characters, and `:@/?`.
    private static func isPlainByte(_ byte: UInt8) -> Bool {
        byte < 128 && plain[Int(byte)]
    }

    private static let plain: [Bool] = (0..<128).map { code in
        let byte = UInt8(code)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~!$&'()*+,;=:@/?".utf8.contains(byte)
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

extension String {
    /// An absolute path with no `.`, `..` or empty part and no slash at the end (`/a/./b`,
    /// `/a/../b`, `/a//b`, `/a/` are not): what `URL.standardizedFileURL` leaves as it is.
    package var isStandardPath: Bool {
        guard utf8.first == UInt8(ascii: "/"), utf8.count > 1 else { return false }
        var length = 0
        var onlyDots = true
        for byte in utf8.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if length == 0 || (onlyDots && length <= 2) { return false }
                (length, onlyDots) = (0, true)
            } else {
                length += 1
                if byte != UInt8(ascii: ".") { onlyDots = false }
            }
        }
        return length > 0 && !(onlyDots && length <= 2)
    }
}
