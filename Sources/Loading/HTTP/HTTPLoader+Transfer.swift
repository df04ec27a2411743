import AsyncHTTPClient
import Crypto
import Foundation
import GalleryCore
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPLoader {
    /// Sends one GET and handles its answer (a redirect, a 304, or a body streamed into the
    /// cache), all within the configured ``TransferLimits``.
    func send(_ url: URL, source: CanonicalURL, record: CacheRecord?, expectsImage: Bool, redirects: [String])
        async throws -> AttemptOutcome
    {
        counter.update { $0.requests += 1 }
        do {
            return try await exchange(
                url, source: source, record: record, expectsImage: expectsImage, redirects: redirects)
        } catch {
            throw Self.loadingError(for: error, url: url)
        }
    }

    private func exchange(
        _ url: URL, source: CanonicalURL, record: CacheRecord?, expectsImage: Bool, redirects: [String]
    ) async throws -> AttemptOutcome {
        let limits = configuration.limits
        let meter = TransferMeter()
        // The feed's secret joins a request to the feed's own origin only, and only here.
        let sent =
            configuration.credentials?.request(for: url, at: configuration.clock.now) ?? (
                url: url.absoluteString, headers: []
            )
        var request = HTTPClientRequest(url: sent.url)
        request.method = .GET
        request.headers = requestHeaders(credentials: sent.headers, record: record, expectsImage: expectsImage)
        // Until the head, the client's deadline is the limits' (most answers, a 304 or a redirect,
        // end there); a body is watched while it streams. A watch for every request cost a task
        // and a timer each: about a quarter of a 100,000-entry revalidation's load (BENCHMARKS.md).
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: TimeAmount(limits.headDeadline))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw limits.noAnswer(since: meter, url: url.absoluteString)
        }
        meter.headReceived()
        return try await answer(
            response, url: url, source: source, record: record, expectsImage: expectsImage, redirects: redirects,
            meter: meter)
    }

    /// What an answer to a GET means, from its head: a redirect, a 304 (to a conditional request),
    /// a 200 whose body is streamed into the cache, or an error. `meter` started with the request.
    func answer(
        _ response: HTTPClientResponse, url: URL, source: CanonicalURL, record: CacheRecord?, expectsImage: Bool,
        redirects: [String], meter: TransferMeter
    ) async throws -> AttemptOutcome {
        let limits = configuration.limits
        let status = Int(response.status.code)
        let head = ResponseHead(
            status: status, headers: response.headers, finalURL: url.absoluteString, redirects: redirects)
        if !expectsImage, status == 200 || status == 304, !response.headers["Link"].isEmpty {
            let link = redacted(response.headers["Link"].joined(separator: ", "))
            documentLinks.withLock { $0[source.description] = link }
        }
        switch status {
        case 301, 302, 303, 307, 308:
            guard let location = response.headers.first(name: "Location") else {
                throw LoadingError(.network, url: url.absoluteString, "redirect \(status) without a Location header")
            }
            return .redirect(location)
        case 304 where record != nil:
            counter.update { $0.notModified += 1 }
            // A 304 has no body: over HTTP/1 its answer ends with its head (RFC 9112 section 6.3),
            // and read to that end it leaves its connection open for the next request (dropped
            // unread, the client closes it: a --refresh of 90,878 URLs opened 13,460 connections).
            // Over HTTP/2 dropping it resets the one stream; reading it would wait on whatever a
            // server sends after the head, with no deadline but the client's idle one.
            if response.version.major < 2 {
                for try await _ in response.body {}
            }
            return .notModified(head)
        case 200:
            counter.update { $0.ok += 1 }
            let original = try await limits.enforce(url: url.absoluteString, meter: meter) { meter in
                try await self.store(response, head: head, source: source, expectsImage: expectsImage, meter: meter)
            }
            return .downloaded(original)
        default:
            var error = LoadingError(
                .httpStatus,
                url: url.absoluteString,
                "the server answered \(status) \(response.status.reasonPhrase)"
                    + Self.advice(forStatus: status, noun: Self.noun(expectsImage)),
                status: status
            )
            error.retryAfter = response.headers.first(name: "Retry-After")
            throw error
        }
    }

    /// A GET's headers (but Host): the user agent, the feed's secret where it applies, what is
    /// accepted, and the record's validators exactly as stored (the ETag byte for byte, W/
    /// included; Last-Modified verbatim).
    func requestHeaders(credentials: [(String, String)], record: CacheRecord?, expectsImage: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders([("User-Agent", configuration.userAgent)])
        headers.add(contentsOf: credentials)
        headers.add(name: "Accept", value: expectsImage ? "image/avif,image/webp,image/*;q=0.9,*/*;q=0.5" : "*/*")
        if let record {
            if let etag = record.etag { headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = record.lastModified { headers.add(name: "If-Modified-Since", value: lastModified) }
        }
        return headers
    }

    /// `text` without the feed's secret, should the server have echoed it.
    func redacted(_ text: String) -> String { configuration.credentials?.redacting(text) ?? text }

    /// What is being loaded, for messages: a photo, or the feed itself.
    static func noun(_ expectsImage: Bool) -> String { expectsImage ? "image" : "feed" }

    private static func advice(forStatus status: Int, noun: String) -> String {
        switch status {
        case 404, 410:
            noun == "feed" ? "; check feed.url in gallery.yml" : "; the feed names an image that is not there"
        case 401, 403: "; the \(noun) is not public"
        case 429: "; the server is rate-limiting: lower per_host or concurrency"
        default: ""
        }
    }

    /// Streams a 200's body to a temporary file, hashing and checking it on the way, then moves it
    /// into the cache and records it (unless `no-store`).
    private func store(
        _ response: HTTPClientResponse, head: ResponseHead, source: CanonicalURL, expectsImage: Bool,
        meter: TransferMeter
    ) async throws -> Original {
        let noun = Self.noun(expectsImage)
        let url = head.finalURL
        let contentType = response.headers.first(name: "Content-Type")
        if expectsImage, let contentType, !Self.mayBeImage(contentType: contentType) {
            throw LoadingError(.notAnImage, url: url, "the server sent \(contentType), not an image or a video")
        }
        // A clip has its own bound. Before the body, its type or name say which applies (an
        // image's type, the image's; a clip's type or name, the clip's; a type that says neither,
        // the larger); its first bytes decide once they arrive, both ways.
        var limit = BodyLimit(
            isVideo: expectsImage && Self.mayBeVideo(contentType: contentType, url: url), configuration: configuration)
        let isGeneric = expectsImage && !limit.isVideo && !Self.isImage(contentType: contentType)
        let expectedLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        if let expectedLength, expectedLength > limit.bytes,
            !isGeneric || expectedLength > max(configuration.maxImageBytes, configuration.maxVideoBytes)
        {
            throw LoadingError(.tooLarge, url: url, "the \(noun) is \(expectedLength) bytes, over \(limit)")
        }
        var sniffed = !expectsImage
        if isGeneric { limit.bytes = max(configuration.maxImageBytes, configuration.maxVideoBytes) }
        let file = cache.temporaryFile()
        let descriptor = open(file.path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw LoadingError(.cache, url: url, "cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        var isOpen = true
        func closeFile() {
            if isOpen { close(descriptor) }
            isOpen = false
        }
        do {
            var hasher = SHA256()
            var received: Int64 = 0
            var prefix: [UInt8] = []
            do {
                for try await buffer in response.body {
                    meter.received(buffer.readableBytes)
                    received += Int64(buffer.readableBytes)
                    if prefix.count < 16 { prefix += buffer.readableBytesView.prefix(16 - prefix.count) }
                    // Once, when the first 16 bytes are in: an image or a clip, and so its bound.
                    if !sniffed, prefix.count >= 16 {
                        sniffed = true
                        guard ImageSniffer.isMedia(prefix) else {
                            throw LoadingError(
                                .notAnImage, url: url,
                                "the body does not start like an image or a video (\(Self.describe(prefix)))")
                        }
                        limit = BodyLimit(
                            isVideo: ImageSniffer.videoType(of: prefix) != nil, configuration: configuration)
                        if let expectedLength, expectedLength > limit.bytes {
                            throw LoadingError(
                                .tooLarge, url: url, "the \(noun) is \(expectedLength) bytes, over \(limit)")
                        }
                    }
                    if received > limit.bytes {
                        throw LoadingError(.tooLarge, url: url, "the body passed \(limit); stopped")
                    }
                    try buffer.withUnsafeReadableBytes { bytes in
                        hasher.update(bufferPointer: bytes)
                        try Self.writeAll(bytes, to: descriptor, path: file.path)
                    }
                }
            } catch let error as LoadingError {
                throw error
            } catch {
                if let expectedLength, received < expectedLength {
                    throw LoadingError(
                        .truncated, url: url, "the body ended after \(received) of \(expectedLength) bytes")
                }
                throw Self.loadingError(for: error, url: URL(string: url) ?? source.url)
            }
            counter.update { $0.bodyBytes += received }
            if let expectedLength, received != expectedLength {
                throw LoadingError(
                    .truncated, url: url, "the body has \(received) bytes, Content-Length said \(expectedLength)")
            }
            if expectsImage, !ImageSniffer.isMedia(prefix) {
                throw LoadingError(
                    .notAnImage, url: url,
                    "the body does not start like an image or a video (\(Self.describe(prefix)))")
            }
            fsync(descriptor)
            closeFile()
            let sha256 = hexString(hasher.finalize())
            // A feed page that echoes the feed's secret is used by this build and not kept.
            let holdsSecret =
                !expectsImage
                && (configuration.credentials.map { credentials in
                    (try? Data(contentsOf: file)).map(credentials.isIn) ?? true
                } ?? false)
            return try commit(
                file, sha256: sha256, size: received, head: head, source: source, contentType: contentType, noun: noun,
                keep: !holdsSecret)
        } catch {
            closeFile()
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    private func commit(
        _ file: URL, sha256: String, size: Int64, head: ResponseHead, source: CanonicalURL, contentType: String?,
        noun: String, keep: Bool = true
    ) throws -> Original {
        let headers = head.headers
        let now = configuration.clock.now.timeIntervalSince1970
        // A header given on several lines is one list (RFC 9110 §5.3): `private` on a line of
        // its own counts.
        let cacheControl = headers["Cache-Control"].isEmpty ? nil : headers["Cache-Control"].joined(separator: ", ")
        if CacheControl(cacheControl).noStore || !keep {
            // Used by this build, never kept: the file stays in tmp/ until the build has used it
            // (``discardUnstored(_:)``); the next start empties tmp/ if this process dies first.
            return Original(
                source: source, file: file, sha256: sha256, byteCount: size, contentType: contentType,
                origin: .downloaded, isTransient: true)
        }
        let blob: URL
        do {
            blob = try cache.commitBlob(file, sha256: sha256, size: size)
        } catch {
            throw LoadingError(
                .cache, url: source.description, "cannot store the \(noun) in the cache", underlying: error as NSError)
        }
        let record = CacheRecord(
            url: source.description,
            finalURL: head.finalURL,
            redirects: head.redirects,
            status: head.status,
            etag: headers.first(name: "ETag"),
            lastModified: headers.first(name: "Last-Modified"),
            date: headers.first(name: "Date"),
            age: headers.first(name: "Age"),
            cacheControl: cacheControl,
            expires: headers.first(name: "Expires"),
            vary: headers.first(name: "Vary"),
            contentType: contentType,
            sha256: sha256,
            size: size,
            blobModified: DiskCache.modificationTime(of: blob),
            responseTime: now,
            fetchedAt: now,
            validatedAt: now,
            lastUsed: now,
            link: noun == "feed" ? redacted(headers["Link"].joined(separator: ", ")) : nil
        )
        cache.store(record)
        cache.markUsed(record, at: configuration.clock.now)
        return Original(
            source: source,
            inBlobs: cache.blobFolder,
            sha256: sha256,
            byteCount: size,
            contentType: contentType,
            validators: record.validators,
            origin: .downloaded
        )
    }

    /// Content types an image may come with: image/*, and the generic binary types some hosts use.
    static func mayBeImage(contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first?.trimmingWhitespace().lowercased() ?? ""
        return type.hasPrefix("image/") || type.hasPrefix("video/") || type == "application/octet-stream"
            || type == "binary/octet-stream" || type.isEmpty
    }

    /// An `image/` type.
    static func isImage(contentType: String?) -> Bool {
        contentType?.trimmingWhitespace().lowercased().hasPrefix("image/") == true
    }

    /// A `video/` type, or a name ending like a clip's (`.mp4`, `.mov`…).
    static func mayBeVideo(contentType: String?, url: String) -> Bool {
        if let contentType, MediaKind.isVideo(mimeType: contentType) { return true }
        return MediaKind.isVideo(path: URL(string: url)?.path ?? "")
    }

    /// The bound on a body: `max_image_bytes`, or `video.max_bytes` for a clip.
    struct BodyLimit: CustomStringConvertible {
        var isVideo: Bool
        var bytes: Int64

        init(isVideo: Bool, configuration: Configuration) {
            self.isVideo = isVideo
            bytes = isVideo ? configuration.maxVideoBytes : configuration.maxImageBytes
        }

        var description: String { "\(isVideo ? "video.max_bytes" : "max_image_bytes") (\(bytes))" }
    }

    private static func describe(_ prefix: [UInt8]) -> String {
        let text = String(decoding: prefix.prefix(16), as: UTF8.self)
        let printable = text.unicodeScalars.allSatisfy {
            $0.value >= 0x20 && $0.value < 0x7F || $0 == "\n" || $0 == "\r"
        }
        if printable { return "\"\(text.replacingOccurrences(of: "\n", with: " ").prefix(16))…\"" }
        return prefix.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw LoadingError(.cache, url: path, "cannot write to the cache: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// AsyncHTTPClient's and NIO's errors as ours; cancellation stays cancellation.
    static func loadingError(for error: any Error, url: URL) -> any Error {
        if error is CancellationError { return error }
        if let clientError = error as? HTTPClientError, clientError == .cancelled { return CancellationError() }
        if Task.isCancelled { return CancellationError() }
        if let loading = error as? LoadingError { return loading }
        if let clientError = error as? HTTPClientError, clientError == .deadlineExceeded || clientError == .readTimeout
        {
            return LoadingError(.timedOut, url: url.absoluteString, "timed out")
        }
        return LoadingError(
            .network, url: url.absoluteString, "cannot reach the server",
            underlying: error)
    }
}
