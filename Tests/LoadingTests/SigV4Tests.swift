import AsyncHTTPClient
import Foundation
import TestSupport
import Testing

@testable import Loading

/// The S3 signer against botocore's (`Tests/S3/sigv4_cases.py`): hundreds of generated requests
/// with odd keys, spaces, unicode, query strings, extra headers, session tokens and regions.
@Suite struct SigV4Tests {
    struct Case: Decodable {
        var method: String
        var url: String
        var headers: [String: String]
        var region: String
        var service: String
        var accessKey: String
        var secretKey: String
        var sessionToken: String?
        var amzDate: String
        var payloadSHA256: String
        var expectedAuthorization: String
        var expectedCanonicalRequest: String

        enum CodingKeys: String, CodingKey {
            case method, url, headers, region, service
            case accessKey = "access_key"
            case secretKey = "secret_key"
            case sessionToken = "session_token"
            case amzDate = "amz_date"
            case payloadSHA256 = "payload_sha256"
            case expectedAuthorization = "expected_authorization"
            case expectedCanonicalRequest = "expected_canonical_request"
        }
    }

    /// Host (with a port unless it is the scheme's own), path and query, as they are on the wire.
    static func parts(of url: String) -> (host: String, path: String, query: String?) {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        let rest = afterScheme.dropFirst(authority.count)
        let path = rest.prefix { $0 != "?" }
        let query = rest.dropFirst(path.count).dropFirst()
        var host = authority.lowercased()
        if (url.hasPrefix("http://") && host.hasSuffix(":80")) || (url.hasPrefix("https://") && host.hasSuffix(":443"))
        {
            host = String(host.prefix { $0 != ":" })
        }
        return (host, String(path), rest.contains("?") ? String(query) : nil)
    }

    @Test func signaturesAgreeWithBotocore() throws {
        let cases = try JSONDecoder().decode(
            [Case].self, from: TestPython.run("sigv4_cases.py", ["--count", "400", "--seed", "11"]))
        #expect(cases.count == 400)
        var mismatches: [String] = []
        for item in cases {
            let (host, path, query) = Self.parts(of: item.url)
            let signer = SigV4Signer(
                credentials: .init(
                    accessKey: item.accessKey, secretKey: item.secretKey, sessionToken: item.sessionToken),
                region: item.region, service: item.service)
            let signature = signer.sign(
                method: item.method, path: path, query: query,
                headers: [("host", host)] + item.headers.map { ($0.key, $0.value) },
                payloadSHA256: item.payloadSHA256, amzDate: item.amzDate)
            if signature.authorization != item.expectedAuthorization {
                mismatches.append(
                    "\(item.method) \(item.url)\nours:\n\(signature.canonicalRequest)\nbotocore's:\n"
                        + item.expectedCanonicalRequest)
            }
        }
        #expect(
            mismatches.isEmpty, "\(mismatches.count) of \(cases.count) differ; the first:\n\(mismatches.first ?? "")")
        // The cases cover what they should.
        #expect(cases.contains { $0.url.contains("%20") } && cases.contains { $0.url.contains("%E6") })
        #expect(cases.contains { $0.url.contains("?") } && cases.contains { $0.sessionToken != nil })
    }

    @Test func keysAreEncodedOnceWithUpperCaseHex() {
        #expect(SigV4Signer.encode("a b/ü+~*", keepingSlash: true) == "a%20b/%C3%BC%2B~%2A")
        #expect(SigV4Signer.encode("a/b", keepingSlash: false) == "a%2Fb")
        #expect(SigV4Signer.amzDate(Date(timeIntervalSince1970: 1_795_000_000)) == "20261118T110640Z")
    }

    @Test(
        arguments: [
            (
                "photos", "gallery cache", nil, "eu-central-1",
                "https://photos.s3.eu-central-1.amazonaws.com/gallery%20cache/v1/k"
            ),
            ("my.photos", "p", nil, "us-east-1", "https://s3.us-east-1.amazonaws.com/my.photos/p/v1/k"),
            ("b", "", "http://127.0.0.1:9000", "us-east-1", "http://127.0.0.1:9000/b/v1/k"),
            ("b", "/x/", "https://gw.example.org:443/s3/", "auto", "https://gw.example.org/s3/b/x/v1/k"),
        ] as [(String, String, String?, String, String)])
    func objectsAreAddressedAsS3Wants(bucket: String, prefix: String, endpoint: String?, region: String, url: String)
        throws
    {
        let store = try #require(
            S3RemoteStore(
                bucket: bucket, prefix: prefix, endpoint: endpoint.flatMap(URL.init(string:)), region: region,
                credentials: .init(accessKey: "a", secretKey: "s"), client: HTTPClient.shared))
        #expect(store.url("v1/k") == url)
    }
}
