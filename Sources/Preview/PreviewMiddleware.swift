import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// What the preview adds to `FileMiddleware`'s answers: the live-reload script in each HTML page
/// (on the way out: never written into the built site), `Cache-Control` by kind of file (the
/// content-named thumbnails forever, everything else revalidated), a 404 page, 405 for methods
/// other than GET and HEAD, and the `--verbose` request log.
struct PreviewMiddleware: RouterMiddleware {
    typealias Context = PreviewContext

    let liveReload: LiveReload
    let log: (@Sendable (String) -> Void)?

    /// Text types with their charset (Hummingbird's defaults name none).
    static let textTypes: [String: MediaType] = [
        "html": MediaType(type: .text, subType: "html", parameter: ("charset", "utf-8")),
        "css": MediaType(type: .text, subType: "css", parameter: ("charset", "utf-8")),
        "js": MediaType(type: .text, subType: "javascript", parameter: ("charset", "utf-8")),
        "txt": MediaType(type: .text, subType: "plain", parameter: ("charset", "utf-8")),
        "xml": MediaType(type: .application, subType: "xml"),
        "json": MediaType(type: .application, subType: "json"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let response = await answer(request, context: context, next: next)
        log?("\(request.method) \(request.uri.path) \(response.status.code)")
        return response
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async -> Response
    {
        guard request.method == .get || request.method == .head else {
            var headers = HTTPFields()
            headers[.allow] = "GET, HEAD"
            return Response(status: .methodNotAllowed, headers: headers)
        }
        var response: Response
        do {
            response = try await respond(request, context: context, next: next)
        } catch let error as any HTTPResponseError where [.notFound, .badRequest].contains(error.status) {
            return notFound(path: request.uri.path, isHead: request.method == .head)
        } catch {
            return Response(status: .internalServerError)
        }
        guard response.headers[.contentType] != "text/event-stream" else { return response }
        let isThumbnail = request.uri.path.hasPrefix("/images/")
        response.headers[.cacheControl] = isThumbnail ? "public, max-age=31536000, immutable" : "no-cache"
        guard response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        // FileMiddleware's ETags are weak already, as a page that changes on its way out needs.
        guard response.status == .ok else { return response }
        let page = await Self.collect(response.body)
        let bytes = Array(liveReload.inject(into: String(decoding: page, as: UTF8.self)).utf8)
        response.headers[.contentLength] = String(bytes.count)
        response.headers[.acceptRanges] = nil
        if request.method == .head { return Response(status: .ok, headers: response.headers) }
        return Response(
            status: .ok, headers: response.headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The file's answer, with `Range` read by the rules of ``ByteRange``: `FileMiddleware` is
    /// asked without the header first (its answer carries the file's size, its body is not read
    /// unless it is sent), then again with the range clipped to the file.
    private func respond(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.range] else { return try await next(request, context) }
        func asking(for range: String?) -> Request {
            var head = request.head
            head.headerFields[.range] = range
            return Request(head: head, body: request.body)
        }
        let response = try await next(asking(for: nil), context)
        guard let range = ByteRange(header: header), response.status == .ok,
            let size = response.headers[.contentLength].flatMap({ Int($0) })
        else { return response }
        guard let bytes = range.bytes(ofFileOfSize: size) else {
            var headers = HTTPFields()
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        return try await next(asking(for: "bytes=\(bytes.lowerBound)-\(bytes.upperBound)"), context)
    }

    private func notFound(path: String, isHead: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        let escaped = path.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let page = liveReload.inject(
            into: """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>
                <body><h1>Not found</h1><p>Nothing at <code>\(escaped)</code> in the built site.
                <a href="/">Back to the gallery</a>.</p></body></html>
                """
        )
        headers[.contentLength] = String(page.utf8.count)
        if isHead { return Response(status: .notFound, headers: headers) }
        return Response(status: .notFound, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// The bytes of a response body (a page: small).
    private static func collect(_ body: ResponseBody) async -> [UInt8] {
        let collected = Collected()
        try? await body.write(CollectingWriter(collected: collected))
        return collected.bytes.withLock { $0 }
    }

    private final class Collected: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    private struct CollectingWriter: ResponseBodyWriter {
        let collected: Collected

        mutating func write(_ buffer: ByteBuffer) async throws {
            collected.bytes.withLock { $0 += buffer.readableBytesView }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
