import AsyncHTTPClient
package import Foundation
import GalleryCore
import NIOCore
import NIOHTTP1

extension HTTPLoader {
    /// The properties a WebDAV folder's listing is asked for: enough to tell a folder from a
    /// file, and a file's version.
    package static let propfindBody = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getlastmodified/>\
        <d:getcontenttype/><d:getcontentlength/></d:prop></d:propfind>
        """

    /// A WebDAV folder's listing: `PROPFIND` with `Depth: 1` (never `infinity`: a folder at a
    /// time), the feed's secret sent to its origin only, retried as a GET is, redirects followed,
    /// the answer bounded by `max_image_bytes`. Not cached: a listing carries no validator of its
    /// own; the files' ETags in it spare their requests (``noteListedETags(_:)``).
    package func propfind(_ folder: URL) async throws -> Data {
        if configuration.offline {
            throw LoadingError(
                .offlineMiss, url: folder.absoluteString,
                "a WebDAV folder is listed by asking it; --offline asks nobody")
        }
        var url = folder
        var visited: Set<String> = [folder.absoluteString]
        for _ in 0...configuration.maxRedirects {
            let answer = try await withRetries(url: url) { try await self.sendPropfind(url) }
            switch answer {
            case .listing(let data): return data
            case .redirect(let location):
                // A Location that repeats the feed's secret is followed without it.
                guard let found = URL(string: location, relativeTo: url)?.absoluteURL,
                    case let next = configuration.credentials?.stripped(found) ?? found,
                    ["http", "https"].contains(next.scheme?.lowercased() ?? ""),
                    configuration.credentials?.mayRedirect(to: next) != false,
                    visited.insert(next.absoluteString).inserted
                else {
                    throw LoadingError(
                        .redirectLoop, url: url.absoluteString,
                        "redirected to \"\(redacted(String(location.prefix(200))))\", not followed")
                }
                url = next
            }
        }
        throw LoadingError(
            .tooManyRedirects, url: folder.absoluteString, "more than \(configuration.maxRedirects) redirects")
    }

    private enum PropfindAnswer {
        case listing(Data)
        case redirect(String)
    }

    private func sendPropfind(_ url: URL) async throws -> PropfindAnswer {
        counter.update { $0.requests += 1 }
        let sent =
            configuration.credentials?.request(for: url, at: configuration.clock.now) ?? (
                url: url.absoluteString, headers: []
            )
        var request = HTTPClientRequest(url: sent.url)
        request.method = .RAW(value: "PROPFIND")
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Depth", value: "1")
        request.headers.add(name: "Content-Type", value: "application/xml; charset=utf-8")
        for (name, value) in sent.headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: Self.propfindBody))
        let total = configuration.limits.total
        do {
            let response = try await client.execute(
                request,
                timeout: TimeAmount(total))
            let status = Int(response.status.code)
            switch status {
            case 207:
                let body = try await response.body.collect(upTo: Int(min(configuration.maxImageBytes, Int64(Int.max))))
                counter.update { $0.bodyBytes += Int64(body.readableBytes) }
                return .listing(Data(body.readableBytesView))
            case 301, 302, 303, 307, 308:
                guard let location = response.headers.first(name: "Location") else {
                    throw LoadingError(
                        .network, url: url.absoluteString, "redirect \(status) without a Location header")
                }
                return .redirect(location)
            default:
                // Read (a little of) the answer, so that the connection is left in order.
                _ = try? await response.body.collect(upTo: 65_536)
                var error = LoadingError(
                    .httpStatus, url: url.absoluteString,
                    "the server answered \(status) \(response.status.reasonPhrase) to PROPFIND"
                        + (status == 401 || status == 403
                            ? "; the folder is not public: set feed.auth"
                            : status == 405 ? "; it is no WebDAV folder" : ""),
                    status: status)
                error.retryAfter = response.headers.first(name: "Retry-After")
                throw error
            }
        } catch let error as NIOTooManyBytesError {
            throw LoadingError(
                .tooLarge, url: url.absoluteString,
                "the folder's listing passed max_image_bytes (\(configuration.maxImageBytes)); stopped",
                underlying: error)
        } catch {
            throw Self.loadingError(for: error, url: url)
        }
    }
}
