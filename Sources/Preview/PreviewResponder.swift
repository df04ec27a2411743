import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Answers the preview's requests: the live-reload event stream, and the output folder's files
/// through Hummingbird's `FileMiddleware` (content types, ETag and Last-Modified with 304s, Range,
/// HEAD), with a middleware of ours in front (``PreviewMiddleware``) for what a preview adds: the
/// reload script in every page, caching fit for each kind of file, and a 404 page.
enum PreviewResponder {
    static func router(
        root: URL, liveReload: LiveReload, log: (@Sendable (String) -> Void)?, logger: Logger
    ) -> Router<PreviewContext> {
        let router = Router(context: PreviewContext.self)
        router.add(middleware: PreviewMiddleware(liveReload: liveReload, log: log))
        router.add(
            middleware: FileMiddleware(
                fileProvider: OutputFolderFiles(root: root, logger: logger), searchForIndexHtml: true
            ).withAdditionalMediaTypes(forFileExtensions: PreviewMiddleware.textTypes))
        router.get(RouterPath(LiveReload.eventsPath)) { _, context in
            events(liveReload: liveReload, connectionClosed: context.connectionClosed)
        }
        return router
    }

    private static func events(liveReload: LiveReload, connectionClosed: EventLoopFuture<Void>?) -> Response {
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
}
