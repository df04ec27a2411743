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
    func request(for url: URL, at date: Date = Date()) -> (url: String, headers: [(String, String)]) {
        guard applies(to: url) else { return (url.absoluteString, []) }
        if let signer, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) {
            // Signed as sent: the path and query exactly as they go on the wire.
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
        case .basic(let user):
            let token = Data("\(user):\(secret)".utf8).base64EncodedString()
            return (url.absoluteString, [("Authorization", "Basic \(token)")])
        case .query(let parameter):
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
                return (url.absoluteString, [])
            }
            var items = components.queryItems ?? []
            items.removeAll { $0.name == parameter }
            items.append(URLQueryItem(name: parameter, value: secret))
            components.queryItems = items
            // `+` would be read as a space by many servers; a secret keeps it.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(
                of: "+", with: "%2B")
            return (components.url?.absoluteString ?? url.absoluteString, [])
        }
    }

    /// `url` without the query parameter that carries the secret, and without any parameter
    /// whose value is the secret (a server that echoes it in its next links or image URLs): what
    /// the build keeps and shows is never the secret. A query secret is added again as each
    /// request to the feed's origin leaves.
    package func stripped(_ url: URL) -> URL {
        guard !secret.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let items = components.queryItems
        else { return url }
        let named: String? = if case .query(let parameter) = kind, applies(to: url) { parameter } else { nil }
        let kept = items.filter { $0.name != named && $0.value != secret }
        guard kept.count < items.count else { return url }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }

    /// The secret's forms as an answer could hold them: as written, and percent-encoded.
    private var forms: Set<String> {
        [
            secret, secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret,
            secret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? secret,
        ]
    }

    /// True when `data` (a feed page's body) holds the secret: such a page is used and not kept.
    package func isIn(_ data: Data) -> Bool {
        !secret.isEmpty && forms.contains { data.range(of: Data($0.utf8)) != nil }
    }

    /// `text` (a header a server echoed the secret in) with the secret taken out, as written or
    /// percent-encoded: what is kept of an answer never holds it.
    package func redacting(_ text: String) -> String {
        guard !secret.isEmpty else { return text }
        var result = text
        for form in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: "")
        }
        return result
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "http" ? 80 : 443)
        return "\(scheme)://\(host):\(port)"
    }
}
