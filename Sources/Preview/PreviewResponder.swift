import Foundation
import GalleryCore
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Answers the preview's requests: the live-reload event stream, and the output folder's files
/// (HTML with the reload script added on the way out).
struct PreviewResponder: Sendable {
    let files: StaticFiles
    let liveReload: LiveReload
    /// Called for each request with its method, path and status (the `--verbose` log).
    let log: (@Sendable (String) -> Void)?

    /// - Parameter connectionClosed: completes when the request's connection closes (an event
    ///   stream ends then); nil where there is no connection to watch.
    func respond(to request: Request, connectionClosed: EventLoopFuture<Void>? = nil) async -> Response {
        let path = request.uri.path
        let response: Response
        switch (request.method, path) {
        case (.get, LiveReload.eventsPath):
            response = events(connectionClosed: connectionClosed)
        case (.get, _), (.head, _):
            response = file(path: path, request: request)
        default:
            var headers = HTTPFields()
            headers[.allow] = "GET, HEAD"
            response = Response(status: .methodNotAllowed, headers: headers)
        }
        log?("\(request.method) \(path) \(response.status.code)")
        return response
    }

    private func events(connectionClosed: EventLoopFuture<Void>?) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-cache"
        guard let (stream, end) = liveReload.subscribe() else {
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.retryAfter] = "10"
            return Response(
                status: .serviceUnavailable, headers: headers,
                body: ResponseBody(
                    byteBuffer: ByteBuffer(
                        string: "Too many live-reload streams are open (\(liveReload.maxSubscribers)); "
                            + "close some preview tabs.\n")))
        }
        // The page went away: end its stream now, not at the next event.
        connectionClosed?.whenComplete { _ in end() }
        headers[.contentType] = "text/event-stream"
        let liveReload = liveReload
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                // The server waits for its responses before it stops: end the stream when the
                // shutdown begins, or Ctrl-C would wait for the browser tab to close.
                try await withGracefulShutdownHandler {
                    for await event in stream {
                        try await writer.write(ByteBuffer(string: event.text))
                    }
                } onGracefulShutdown: {
                    liveReload.finish()
                }
                try await writer.finish(nil)
            }
        )
    }

    private func file(path: String, request: Request) -> Response {
        guard let file = files.file(forPath: path) else { return notFound(path: path, request: request) }
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = file.cacheControl
        headers[.lastModified] = HTTPDate.format(file.modified)
        // HTML changes on its way out (the reload script), so its validator says so.
        headers[.eTag] = file.isHTML ? "W/\(file.etag)" : file.etag
        if Self.isNotModified(request: request, etag: headers[.eTag] ?? "", modified: file.modified) {
            return Response(status: .notModified, headers: headers)
        }
        guard let data = FileManager.default.contents(atPath: file.url.path) else {
            return notFound(path: path, request: request)
        }
        var bytes = [UInt8](data)
        if file.isHTML { bytes = Array(liveReload.inject(into: String(decoding: bytes, as: UTF8.self)).utf8) }
        headers[.contentLength] = String(bytes.count)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func notFound(path: String, request: Request) -> Response {
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
        if request.method == .head { return Response(status: .notFound, headers: headers) }
        return Response(status: .notFound, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func isNotModified(request: Request, etag: String, modified: Date) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { $0.trimmingWhitespace() == etag || $0 == "*" }
        }
        if let since = request.headers[.ifModifiedSince], let date = HTTPDate.parse(since) {
            return Int(modified.timeIntervalSince1970) <= Int(date.timeIntervalSince1970)
        }
        return false
    }
}
