package import AsyncHTTPClient
package import Foundation
package import GalleryConcurrency
import GalleryCore
package import NIOCore
import NIOHTTP1

/// Where the remote cache tier keeps its objects: a key-value store with three verbs. Keys are
/// relative paths (`v1/sets/<hex>`). Every answer other than the object, "not there" or "stored"
/// is thrown as a ``RemoteStoreError``.
package protocol RemoteStore: Sendable {
    /// The store as the user wrote it, for messages (never with a credential).
    var displayName: String { get }
    /// The object, or nil when the store does not have it. Its bytes are reserved in `budget`
    /// (as many as the answer announces, else `limit`) before they are read; the caller releases
    /// the returned `reserved` when it no longer holds the data.
    func get(_ key: String, limit: Int, budget: ByteBudget) async throws -> (data: Data, reserved: Int)?
    /// Whether the store has the object.
    func exists(_ key: String) async throws -> Bool
    /// Stores the object (replacing any under that key).
    func put(_ key: String, _ data: Data) async throws
}

/// A remote store's failure, worded for a warning.
package struct RemoteStoreError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// No answer: refused, unreachable, silent.
        case unreachable
        /// An answer that is an error (5xx, 403, ...).
        case status(Int)
        /// More bytes than the caller would take.
        case tooLarge
    }

    package var kind: Kind
    package var description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// Worth another attempt: a dropped or refused connection, 408, 429, 5xx.
    var isRetryable: Bool {
        switch kind {
        case .unreachable: true
        case .status(let status): RetryPolicy.isRetryable(status: status)
        case .tooLarge: false
        }
    }
}

/// Sends a store's requests through the build's HTTP client.
package struct RemoteTransport: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount

    enum Body {
        case none
        case bytes(Data)
    }

    /// Sends one request; a 404 to GET and HEAD is "not there" (nil), every other status outside
    /// 2xx an error. `name` is the object as messages call it.
    func send(
        _ method: HTTPMethod, url: String, headers: [(name: String, value: String)], body: Body, limit: Int,
        name: String, budget: ByteBudget? = nil
    )
        async throws -> (status: Int, body: Data, reserved: Int)?
    {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (field, value) in headers { request.headers.add(name: field, value: value) }
        if case .bytes(let data) = body {
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            // An interrupted build's requests end cancelled: not the store's failure.
            if Self.isCancellation(error) { throw CancellationError() }
            throw RemoteStoreError(.unreachable, "\(name): \(Self.describe(error))")
        }
        let status = Int(response.status.code)
        if status == 404, method != .PUT { return nil }
        guard (200...299).contains(status) else {
            // Read a little of the body: S3 says why in it (SignatureDoesNotMatch, AccessDenied).
            let detail = (try? await response.body.collect(upTo: 4096)).map { Self.errorCode(in: $0) } ?? nil
            throw RemoteStoreError(
                .status(status),
                "\(name): HTTP \(status) \(response.status.reasonPhrase)\(detail.map { " (\($0))" } ?? "")")
        }
        guard method == .GET else { return (status, Data(), 0) }
        // Refused by its announced size before a byte of it is read.
        let announced = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let announced, announced > limit {
            throw RemoteStoreError(.tooLarge, "\(name): \(announced) bytes, more than the \(limit) read")
        }
        // The body is held twice while it is copied out of the client's buffer.
        let reserved = try await budget?.reserve(2 * (announced ?? limit)) ?? 0
        do {
            let collected = try await response.body.collect(upTo: limit)
            return (status, Data(collected.readableBytesView), reserved)
        } catch is NIOTooManyBytesError {
            budget?.release(reserved)
            throw RemoteStoreError(.tooLarge, "\(name): larger than \(limit) bytes")
        } catch {
            budget?.release(reserved)
            if Self.isCancellation(error) { throw CancellationError() }
            throw RemoteStoreError(.unreachable, "\(name): \(Self.describe(error))")
        }
    }

    /// The loader's rule (HTTPLoader.loadingError): the client's `.cancelled`, or a cancelled task.
    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? HTTPClientError) == .cancelled || Task.isCancelled
    }

    /// `<Code>SignatureDoesNotMatch</Code>` in an S3 error body.
    private static func errorCode(in buffer: ByteBuffer) -> String? {
        let text = String(buffer: buffer)
        guard let start = text.range(of: "<Code>"),
            let end = text.range(of: "</Code>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// A transfer's failure in words for a message (not the client's debug text).
    package static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "connection timed out"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

/// A plain HTTP store (nginx with WebDAV, or any server with GET/HEAD/PUT, as Bazel's and
/// Gradle's HTTP caches use): object `key` is at `<base>/<key>`, with an optional bearer token.
package struct HTTPRemoteStore: RemoteStore {
    package let base: URL
    private let token: String?
    private let transport: RemoteTransport

    package init(base: URL, token: String?, client: HTTPClient, timeout: TimeAmount = .seconds(30)) {
        self.base = base.absoluteString.hasSuffix("/") ? base : base.appendingPathComponent("")
        self.token = token
        self.transport = RemoteTransport(client: client, timeout: timeout)
    }

    package var displayName: String { base.absoluteString }

    private func url(_ key: String) -> String {
        base.absoluteString
            + key.split(separator: "/").map { SigV4Signer.encode(String($0), keepingSlash: false) }
            .joined(separator: "/")
    }

    private var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("User-Agent", "gallerygen/\(GalleryVersion.current)")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return headers
    }

    package func get(_ key: String, limit: Int, budget: ByteBudget) async throws -> (data: Data, reserved: Int)? {
        try await transport.send(
            .GET, url: url(key), headers: headers, body: .none, limit: limit, name: key, budget: budget
        ).map { ($0.body, $0.reserved) }
    }

    package func exists(_ key: String) async throws -> Bool {
        try await transport.send(.HEAD, url: url(key), headers: headers, body: .none, limit: 0, name: key) != nil
    }

    package func put(_ key: String, _ data: Data) async throws {
        var headers = headers
        headers.append(("Content-Type", "application/octet-stream"))
        _ = try await transport.send(.PUT, url: url(key), headers: headers, body: .bytes(data), limit: 0, name: key)
    }
}

/// An S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Ceph, GCS's S3 interface), each request
/// signed with AWS Signature V4. A custom endpoint is addressed path-style
/// (`<endpoint>/<bucket>/<key>`), AWS itself virtual-hosted style.
package struct S3RemoteStore: RemoteStore {
    package let bucket: String
    package let prefix: String
    /// Scheme, host and port, no path.
    package let endpoint: URL
    package let pathStyle: Bool
    private let signer: SigV4Signer
    private let transport: RemoteTransport

    /// - Parameters:
    ///   - endpoint: a service other than AWS (addressed path-style), or nil for AWS itself.
    package init?(
        bucket: String, prefix: String, endpoint: URL?, region: String, credentials: SigV4Signer.Credentials,
        client: HTTPClient, timeout: TimeAmount = .seconds(30)
    ) {
        guard let addressing = Self.addressing(bucket: bucket, endpoint: endpoint, region: region) else { return nil }
        self.endpoint = addressing.endpoint
        self.pathStyle = addressing.pathStyle
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
        self.signer = SigV4Signer(credentials: credentials, region: region)
        self.transport = RemoteTransport(client: client, timeout: timeout)
    }

    /// Where `bucket` is asked: another service's endpoint, path-style; AWS itself
    /// virtual-hosted (`<bucket>.s3.<region>.amazonaws.com`), or path-style for a bucket name with
    /// dots (AWS's wildcard certificate does not cover it). Nil when no address can be made.
    package static func addressing(bucket: String, endpoint: URL?, region: String) -> (endpoint: URL, pathStyle: Bool)?
    {
        if let endpoint { return (endpoint, true) }
        if !bucket.contains("."), let aws = URL(string: "https://\(bucket).s3.\(region).amazonaws.com"), aws.host != nil
        {
            return (aws, false)
        }
        guard let aws = URL(string: "https://s3.\(region).amazonaws.com"), aws.host != nil else { return nil }
        return (aws, true)
    }

    package var displayName: String { "s3://\(bucket)/\(prefix)" }

    /// The object's path on the wire, percent-encoded (under the endpoint's own path, if any).
    func path(_ key: String) -> String {
        let full = prefix.isEmpty ? key : "\(prefix)/\(key)"
        let objectPath = "/" + SigV4Signer.encode(full, keepingSlash: true)
        guard pathStyle else { return objectPath }
        let base = endpoint.path.split(separator: "/").map { SigV4Signer.encode(String($0), keepingSlash: false) }
        return (base.map { "/" + $0 }.joined()) + "/" + SigV4Signer.encode(bucket, keepingSlash: false) + objectPath
    }

    /// The URL of the object `key`, as requested.
    func url(_ key: String) -> String {
        "\(endpoint.scheme ?? "https")://\(host)\(path(key))"
    }

    var host: String {
        let host = endpoint.host ?? ""
        guard let port = endpoint.port else { return host }
        let isDefault = (endpoint.scheme == "https" && port == 443) || (endpoint.scheme == "http" && port == 80)
        return isDefault ? host : "\(host):\(port)"
    }

    private func send(_ method: HTTPMethod, _ key: String, body: Data?, limit: Int, budget: ByteBudget? = nil)
        async throws -> (status: Int, body: Data, reserved: Int)?
    {
        let path = path(key)
        var headers: [(name: String, value: String)] = [("host", host)]
        if body != nil { headers.append(("content-type", "application/octet-stream")) }
        let signature = signer.sign(
            method: method.rawValue, path: path, query: nil, headers: headers,
            payloadSHA256: body.map { sha256Hex(of: $0) } ?? SigV4Signer.emptyPayloadSHA256,
            amzDate: SigV4Signer.amzDate(WallClock.system.now))
        headers += signature.headers
        headers.append(("User-Agent", "gallerygen/\(GalleryVersion.current)"))
        return try await transport.send(
            method, url: url(key), headers: headers, body: body.map { .bytes($0) } ?? .none, limit: limit, name: key,
            budget: budget)
    }

    package func get(_ key: String, limit: Int, budget: ByteBudget) async throws -> (data: Data, reserved: Int)? {
        try await send(.GET, key, body: nil, limit: limit, budget: budget).map { ($0.body, $0.reserved) }
    }

    package func exists(_ key: String) async throws -> Bool {
        try await send(.HEAD, key, body: nil, limit: 0) != nil
    }

    package func put(_ key: String, _ data: Data) async throws {
        _ = try await send(.PUT, key, body: data, limit: 0)
    }
}
