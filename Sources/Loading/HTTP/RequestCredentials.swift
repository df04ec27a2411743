package import Foundation
package import GalleryCore

/// A feed's secret, read from its environment variable, and the one origin (scheme, host, port)
/// it is sent to: the feed's own. A request to any other origin, a redirect to one among them,
/// goes without it. The secret is added to the request as it leaves and to nothing else: cache
/// keys, records, the manifest, messages and the report hold the URL without it.
package struct RequestCredentials: Sendable, Equatable, CustomStringConvertible {
    package var kind: FeedCredentials.Kind
    /// `http://host:port`, lower-case, with the port always written.
    package let origin: String
    let secret: String
    /// An S3 bucket's keys: each request to the bucket's origin is signed (SigV4) instead.
    let signer: SigV4Signer?

    /// Nil when `url` is not a web URL.
    package init?(kind: FeedCredentials.Kind, secret: String, for url: URL) {
        guard let origin = Self.origin(of: url) else { return nil }
        self.kind = kind
        self.origin = origin
        self.secret = secret
        self.signer = nil
    }

    /// Requests to `url`'s origin signed with `signer` (an S3 bucket's listing and objects).
    package init?(signer: SigV4Signer, for url: URL) {
        guard let origin = Self.origin(of: url) else { return nil }
        self.kind = .bearer
        self.origin = origin
        self.secret = signer.credentials.secretKey
        self.signer = signer
    }

    /// Never the secret.
    package var description: String { "credentials for \(origin) (\(secret.isEmpty ? "empty" : "redacted"))" }

    package func applies(to url: URL) -> Bool { Self.origin(of: url) == origin }

    /// The request's URL and headers with the secret, when `url` is on the feed's origin.
    func request(for url: URL, at date: Date = WallClock.system.now) -> (url: String, headers: [(String, String)]) {
        guard applies(to: url) else { return (url.absoluteString, []) }
        if let signer {
            // Signed as sent: the path and query exactly as they go on the wire. A URL that
            // cannot be taken apart goes unsigned (and is refused), never with a key in it.
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
                return (url.absoluteString, [])
            }
            let host = components.port.map { "\(components.host ?? ""):\($0)" } ?? (components.host ?? "")
            let signature = signer.sign(
                method: "GET", path: components.percentEncodedPath, query: components.percentEncodedQuery,
                headers: [("host", host)], payloadSHA256: SigV4Signer.emptyPayloadSHA256,
                amzDate: SigV4Signer.amzDate(date))
            return (url.absoluteString, signature.headers.map { ($0.name, $0.value) })
        }
        switch kind {
        case .bearer: return (url.absoluteString, [("Authorization", "Bearer \(secret)")])
        case .header(let name): return (url.absoluteString, [(name, secret)])
        case .basic(let user): return (url.absoluteString, [("Authorization", "Basic \(basicToken(user))")])
        case .query(let parameter):
            // The one pair added to the query as written: the rest of it is sent untouched.
            let text = url.absoluteString
            let (head, fragment) = Self.split(text, at: "#")
            let (path, query) = Self.split(head, at: "?")
            var pairs = (query ?? "").split(separator: "&").map(String.init)
            pairs.removeAll { Self.name(of: $0) == parameter }
            pairs.append(
                parameter.percentEncodedStrictly(keepingSlash: false) + "="
                    + secret.percentEncodedStrictly(keepingSlash: false))
            return (path + "?" + pairs.joined(separator: "&") + (fragment.map { "#" + $0 } ?? ""), [])
        }
    }

    private func basicToken(_ user: String) -> String { Data("\(user):\(secret)".utf8).base64EncodedString() }

    /// Secrets shorter than this are matched only where they are sent (the named query
    /// parameter), not searched for in what servers answer: `1` or `abc` would be found everywhere.
    static let searchableLength = 8

    private var isSearchable: Bool { secret.count >= Self.searchableLength }

    /// `url` without the query parameter that carries the secret, and (for a secret long enough
    /// to tell) without any parameter whose value is the secret (a server that echoes it in its
    /// next links or image URLs): what the build keeps and shows is never the secret. A query
    /// secret is added again as each request to the feed's origin leaves. The rest of the query
    /// is kept as written.
    package func stripped(_ url: URL) -> URL {
        guard !secret.isEmpty else { return url }
        let named: String? = if case .query(let parameter) = kind, applies(to: url) { parameter } else { nil }
        let text = url.absoluteString
        let (head, fragment) = Self.split(text, at: "#")
        let (path, query) = Self.split(head, at: "?")
        guard let query else { return url }
        let pairs = query.split(separator: "&").map(String.init)
        let kept = pairs.filter { pair in
            if let named, Self.name(of: pair) == named { return false }
            // `key=SECRET`, or a bare `SECRET` with no name.
            return !(isSearchable && (Self.value(of: pair) ?? pair.removingPercentEncoding) == secret)
        }
        guard kept.count < pairs.count else { return url }
        let rebuilt = path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + (fragment.map { "#" + $0 } ?? "")
        return URL(string: rebuilt) ?? url
    }

    /// The secret's forms as an answer could hold them: as written, percent-encoded every way
    /// (upper- and lower-case hex), with `/` escaped as JSON writes it, and Basic's token.
    private var forms: Set<String> {
        var forms = secret.echoedForms
        if case .basic(let user) = kind { forms.insert(basicToken(user)) }
        return forms
    }

    /// Whether `url` still holds the secret, in any form and anywhere in it (its path, its user,
    /// a bare `?SECRET` query) once ``stripped(_:)``: a redirect to another origin with such an
    /// address is not followed, since the request would carry the secret there.
    package func holdsSecret(_ url: URL) -> Bool {
        guard secret.count >= 4 else { return false }
        let text = stripped(url).absoluteString
        return forms.contains { text.contains($0) }
    }

    /// Whether a redirect to `url` (once ``stripped(_:)``) may be followed: to the feed's origin, or
    /// to another whose address does not hold the secret.
    package func mayRedirect(to url: URL) -> Bool {
        applies(to: url) || !holdsSecret(url)
    }

    /// True when `data` (a feed page's body) holds the secret: such a page is used and not kept.
    package func isIn(_ data: Data) -> Bool {
        isSearchable && forms.contains { data.range(of: Data($0.utf8)) != nil }
    }

    /// `text` (a `Link` header a server echoed the secret in) with the secret taken out: each
    /// `<target>` stripped as a URL is, then any form of the secret left removed. What is kept of
    /// an answer never holds it.
    package func redacting(_ text: String) -> String {
        guard !secret.isEmpty else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[..<rest.index(after: open)]
            let target = String(rest[rest.index(after: open)..<close])
            result += URL(string: target).map { stripped($0).absoluteString } ?? target
            result += ">"
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        guard isSearchable else { return result }
        for form in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: "")
        }
        return result
    }

    // MARK: Queries as written

    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }

    private static func name(of pair: String) -> String {
        let name =
            pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? pair
        return name.removingPercentEncoding ?? name
    }

    private static func value(of pair: String) -> String? {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return String(parts[1]).removingPercentEncoding
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "http" ? 80 : 443)
        return "\(scheme)://\(host):\(port)"
    }
}
