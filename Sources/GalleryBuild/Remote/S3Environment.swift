package import Foundation
import GalleryCore
package import Loading

/// What the environment says about S3, as the AWS tools read it: the keys (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), the region (`AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, else us-east-1) and another service than AWS (`AWS_ENDPOINT_URL_S3`,
/// else `AWS_ENDPOINT_URL`: R2, MinIO, Ceph, GCS), addressed path-style. Used by an `s3://`
/// remote cache and an `s3://` feed alike.
package struct S3Environment: Sendable {
    /// Nil when either key is not set (or empty).
    package var credentials: SigV4Signer.Credentials?
    package var region: String
    /// The endpoint as written, when one is set.
    package var endpointText: String?

    package init(_ environment: [String: String]) {
        func variable(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let accessKey = variable("AWS_ACCESS_KEY_ID"), let secretKey = variable("AWS_SECRET_ACCESS_KEY") {
            credentials = SigV4Signer.Credentials(
                accessKey: accessKey, secretKey: secretKey, sessionToken: variable("AWS_SESSION_TOKEN"))
        }
        region = variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? "us-east-1"
        endpointText = variable("AWS_ENDPOINT_URL_S3") ?? variable("AWS_ENDPOINT_URL")
    }

    /// The endpoint, nil for AWS itself; a failure when the one set is no http(s) URL.
    package var endpoint: Result<URL?, EndpointProblem> {
        guard let endpointText else { return .success(nil) }
        guard let parsed = URL(string: endpointText), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
            parsed.host != nil
        else { return .failure(EndpointProblem(text: endpointText)) }
        return .success(parsed)
    }

    package struct EndpointProblem: Error {
        package var text: String
    }

    /// The address of the bucket itself (no key), as the remote cache's store addresses it
    /// (``S3RemoteStore/addressing(bucket:endpoint:region:)``): `<endpoint>/<bucket>/` path-style,
    /// else `https://<bucket>.s3.<region>.amazonaws.com/`.
    package func bucketAddress(_ bucket: String, endpoint: URL?) -> URL? {
        guard let addressing = S3RemoteStore.addressing(bucket: bucket, endpoint: endpoint, region: region) else {
            return nil
        }
        let base = addressing.endpoint.absoluteString
        let root = base.hasSuffix("/") ? base : base + "/"
        return URL(
            string: addressing.pathStyle ? root + bucket.percentEncodedStrictly(keepingSlash: false) + "/" : root)
    }
}
