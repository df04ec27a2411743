package import AsyncHTTPClient
import Foundation
package import Loading

/// Where `remote_cache:` (or `--remote-cache`) points, and the store made from it with the
/// credentials of the environment (never from gallery.yml, which is committed):
///
/// - `http(s)://host/path/`: a server with GET, HEAD and PUT (nginx with WebDAV, a Bazel or
///   Gradle HTTP cache); `GALLERYGEN_REMOTE_CACHE_TOKEN` is sent as a bearer token.
/// - `s3://bucket/prefix`: an S3-compatible bucket, signed with `AWS_ACCESS_KEY_ID`,
///   `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) for `AWS_REGION` (or
///   `AWS_DEFAULT_REGION`, else us-east-1); `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` names
///   another service than AWS (R2, MinIO, Ceph, GCS), addressed path-style.
package enum RemoteCacheLocation {
    package static let tokenVariable = "GALLERYGEN_REMOTE_CACHE_TOKEN"

    /// Why `value` is not a remote cache location, or nil when it is one.
    package static func problem(with value: String) -> String? {
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased() else {
            return "`remote_cache` must be an http(s) URL or s3://bucket/prefix, got \"\(value)\""
        }
        if url.user != nil || url.password != nil {
            return "`remote_cache` must not hold a credential; put a token in \(tokenVariable), or AWS keys in "
                + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        }
        switch scheme {
        case "http", "https":
            return url.host?.isEmpty == false ? nil : "`remote_cache` has no host: \"\(value)\""
        case "s3":
            return url.host?.isEmpty == false
                ? nil : "`remote_cache` names no bucket: \"\(value)\" (s3://bucket/prefix)"
        default:
            return "`remote_cache` must be an http(s) URL or s3://bucket/prefix, got \"\(value)\""
        }
    }

    /// The store `value` names, or why it cannot be used in this environment (missing keys).
    package static func store(
        for value: String, environment: [String: String], client: HTTPClient
    ) -> Result<any RemoteStore, RemoteCacheUnavailable> {
        if let problem = problem(with: value) { return .failure(RemoteCacheUnavailable(problem)) }
        guard let url = URL(string: value) else { return .failure(RemoteCacheUnavailable(value)) }
        func variable(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if url.scheme?.lowercased() != "s3" {
            return .success(HTTPRemoteStore(base: url, token: variable(tokenVariable), client: client))
        }
        let s3 = S3Environment(environment)
        guard let credentials = s3.credentials else {
            return .failure(
                RemoteCacheUnavailable(
                    "remote cache \(value): AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set; "
                        + "this build ran without it"))
        }
        let endpoint: URL?
        switch s3.endpoint {
        case .success(let url): endpoint = url
        case .failure(let problem):
            return .failure(
                RemoteCacheUnavailable(
                    "remote cache \(value): the endpoint \"\(problem.text)\" is not an http(s) URL; "
                        + "this build ran without it"))
        }
        let region = s3.region
        guard
            let store = S3RemoteStore(
                bucket: url.host ?? "", prefix: url.path, endpoint: endpoint, region: region,
                credentials: credentials, client: client)
        else {
            return .failure(
                RemoteCacheUnavailable(
                    "remote cache \(value): no AWS endpoint for bucket \"\(url.host ?? "")\" in region \"\(region)\"; "
                        + "this build ran without it"))
        }
        return .success(store)
    }
}

/// Why the remote cache cannot be used by this build: a warning, never a failure (a fork's
/// pull request has no secrets, and builds all the same), except with `--strict`.
package struct RemoteCacheUnavailable: Error, Sendable {
    package var message: String

    init(_ message: String) {
        self.message = message
    }
}
