import Crypto
package import Foundation
import GalleryCore

/// AWS Signature Version 4 for S3 requests (the `Authorization` header form), as AWS documents
/// it and botocore's S3 signer computes it: the path signed as sent (encoded once; S3 does not
/// encode it twice, unlike other services), the query pairs sorted as sent, header values
/// trimmed with inner runs of whitespace collapsed. Checked against botocore over hundreds of
/// generated requests (S3Tests).
package struct SigV4Signer: Sendable, Equatable {
    package struct Credentials: Sendable, Equatable {
        package var accessKey: String
        package var secretKey: String
        /// A temporary credential's token (`x-amz-security-token`).
        package var sessionToken: String?

        package init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
            self.accessKey = accessKey
            self.secretKey = secretKey
            self.sessionToken = sessionToken
        }
    }

    package var credentials: Credentials
    package var region: String
    package var service: String

    /// The hex SHA-256 of an empty body (GET, HEAD).
    package static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    package init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What a signed request carries: the headers to add (`x-amz-date`, `x-amz-content-sha256`,
    /// the token if any, and `Authorization`), with the intermediate texts for debugging.
    package struct Signature: Sendable {
        package var headers: [(name: String, value: String)]
        package var authorization: String
        package var canonicalRequest: String
        package var stringToSign: String
    }

    /// Signs a request. `path` and `query` are as they go on the wire (already percent-encoded,
    /// upper-case hex); `headers` must include `host`; those in ``unsignedHeaders`` are left out. The date is `amzDate` (`20261123T143000Z`).
    package func sign(
        method: String, path: String, query: String?, headers: [(name: String, value: String)],
        payloadSHA256: String, amzDate: String
    ) -> Signature {
        var all = headers
        all.append(("x-amz-date", amzDate))
        all.append(("x-amz-content-sha256", payloadSHA256))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        // Lower-case names, values trimmed and inner runs of spaces collapsed; a header given
        // twice is one line with its values joined by commas.
        var canonical: [String: [String]] = [:]
        for (name, value) in all where !Self.unsignedHeaders.contains(name.lowercased()) {
            canonical[name.lowercased(), default: []].append(Self.collapsingSpaces(value))
        }
        let names = canonical.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let headerLines = names.map { "\($0):\(canonical[$0, default: []].joined(separator: ","))\n" }.joined()
        let canonicalRequest = [
            method,
            Self.canonicalURI(path),
            Self.canonicalQuery(query),
            headerLines,
            signedHeaders,
            payloadSHA256,
        ].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(of: canonicalRequest),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = hexString(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        var added = Array(all.dropFirst(headers.count))
        added.append(("Authorization", authorization))
        return Signature(
            headers: added, authorization: authorization, canonicalRequest: canonicalRequest,
            stringToSign: stringToSign)
    }

    /// `20261123T143000Z` for `date`, in UTC.
    package static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T"
            + "\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    }

    /// Percent-encodes `text` as SigV4 wants it: everything but RFC 3986's unreserved characters
    /// (and `/` when `keepingSlash`), in upper-case hex.
    package static func encode(_ text: String, keepingSlash: Bool) -> String {
        text.percentEncodedStrictly(keepingSlash: keepingSlash)
    }

    /// The path as it goes on the wire: S3 signs it as written (encoded once, by ``encode(_:keepingSlash:)``),
    /// where other services normalise it and encode it again.
    static func canonicalURI(_ path: String) -> String {
        path.isEmpty ? "/" : path
    }

    /// The query as it goes on the wire (already encoded), split into name-value pairs at `&`
    /// and each pair's first `=`, sorted by name then value; a name without a value gets an
    /// empty one (`uploads=`).
    static func canonicalQuery(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Headers that proxies and libraries add or change on the way: never signed (botocore's
    /// list, User-Agent among them).
    static let unsignedHeaders: Set<String> = [
        "authorization", "baggage", "connection", "expect", "keep-alive", "proxy-authenticate",
        "proxy-authorization", "te", "traceparent", "tracestate", "trailer", "transfer-encoding", "upgrade",
        "user-agent", "x-amzn-trace-id",
    ]

    /// Trimmed, every run of whitespace inside made one space.
    private static func collapsingSpaces(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }
}
