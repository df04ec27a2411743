import AsyncHTTPClient
import Foundation
import GalleryBuild
import NIOCore
import TestSupport
import Testing

@testable import Preview

/// A running `gallerygen serve` in this process, with its log.
final class RunningPreview: Sendable {
    let task: Task<Void, any Error>
    let url: URL
    private let lines: Locked<[String]>

    var log: [String] { lines.value ?? [] }

    init(site: URL, poll: Duration? = nil) async throws {
        let lines = Locked<[String]>([])
        self.lines = lines
        let ready = AsyncStream.makeStream(of: URL.self)
        let server = PreviewServer(
            siteDirectory: site,
            configuration: PreviewServer.Configuration(port: 0, pollInterval: poll),
            log: { line in lines.update { $0 = ($0 ?? []) + [line] } }
        )
        task = Task { try await server.run { ready.continuation.yield($0) } }
        var iterator = ready.stream.makeAsyncIterator()
        guard let url = await iterator.next() else { throw TestImageError(message: "the preview did not start") }
        self.url = url
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Waits (up to 20 s, a liveness bound) until a log line satisfies `condition`.
    func waitForLog(_ condition: @escaping (String) -> Bool) async throws {
        try await waitUntil(seconds: 20, "no such log line in: \(log)") { log.contains(where: condition) }
    }
}

@Suite(.serialized) struct PreviewServerTests {
    @Test func anEditRebuildsOnceSendsAReloadAndServesTheNewText() async throws {
        let site = try FixtureSite(count: 2)
        let preview = try await RunningPreview(site: site.url)
        let client = HTTPClient.shared

        let events = try await client.execute(
            HTTPClientRequest(url: preview.url.absoluteString + "__gallerygen/events"), timeout: .seconds(30))
        var body = events.body.makeAsyncIterator()
        let greeting = try await body.next()
        #expect(greeting.map { String(buffer: $0) } == ": connected\n\n")

        try site.folder.write("Hello **edited** world.\n", to: "index.md")
        var received = ""
        while !received.contains("event: reload") {
            guard let chunk = try await body.next() else { break }
            received += String(buffer: chunk)
        }
        #expect(received.contains("event: reload\ndata: ok"))

        let page = try await client.execute(HTTPClientRequest(url: preview.url.absoluteString), timeout: .seconds(10))
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        #expect(html.contains("<strong>edited</strong>"))
        #expect(preview.log.filter { $0.hasPrefix("change:") }.count == 1, "one rebuild: \(preview.log)")
        await preview.stop()
    }

    @Test func aFailedBuildKeepsTheLastGoodSite() async throws {
        let site = try FixtureSite(count: 1)
        let preview = try await RunningPreview(site: site.url)
        try site.folder.write("title: T\nfeed: feed.json\nwidht: 3\n", to: "gallery.yml")
        try await preview.waitForLog { $0.contains("unknown key \"widht\"") }
        let client = HTTPClient.shared
        let page = try await client.execute(HTTPClientRequest(url: preview.url.absoluteString), timeout: .seconds(10))
        #expect(page.status == .ok)
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        #expect(html.contains("Photo 1") && html.contains("unknown key"), "the last good site, with the error")
        await preview.stop()
    }

    @Test func pollingRebuildsWhenTheRemoteFeedChangesAndOnlyThen() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Polled\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48]\n", to: "gallery.yml")
        let preview = try await RunningPreview(site: site.url, poll: .milliseconds(300))
        try await preview.waitForLog { $0.hasPrefix("2 photos") }
        let polledBefore = upstream.server.count("/feed.json")
        try await waitUntil(seconds: 20) { upstream.server.count("/feed.json") >= polledBefore + 3 }
        #expect(upstream.server.count("/feed.json") >= polledBefore + 3, "the feed is polled")
        #expect(
            preview.log.filter { $0.hasSuffix("photos") || $0.contains(" photos, ") }.count == 1,
            "unchanged polls stay quiet")

        upstream.setCount(3)
        try await preview.waitForLog { $0.hasPrefix("3 photos") }
        #expect(
            upstream.photoRequests.filter { !$0.isConditional }.map(\.path).sorted() == [
                "/photos/1.jpg", "/photos/2.jpg", "/photos/3.jpg",
            ])
        await preview.stop()
        try await upstream.server.shutdown()
    }

    @Test func aNewFeedSupersedesTheBuildUnderWay() async throws {
        let server = try await TestHTTPServer { request in
            var response = TestHTTPServer.Response.photo(Int(request.path.dropFirst(8).prefix { $0 != "." }) ?? 0)
            response.delay = .milliseconds(1500)
            return response
        }
        let site = try FixtureSite(count: 1, extraConfig: "concurrency: 4\nper_host: 4")
        let preview = try await RunningPreview(site: site.url)
        func feed(_ numbers: [Int]) -> [String] {
            numbers.map { #"{"title": "P\#($0)", "imageUrl": "\#(server.baseURL)/photos/\#($0).jpg"}"# }
        }
        try site.writeFeed(feed(Array(1...20)))
        try await waitUntil(seconds: 20) { server.requests.count >= 4 }
        #expect(server.requests.count == 4, "four in flight, the rest queued")

        let kept = Array(stride(from: 1, through: 19, by: 2))
        try site.writeFeed(feed(kept))
        try await preview.waitForLog { $0.hasPrefix("10 photos") }

        for number in kept {
            #expect(server.count("/photos/\(number).jpg") == 1, "kept photo \(number) requested exactly once")
        }
        let dropped = stride(from: 2, through: 20, by: 2).map { "/photos/\($0).jpg" }
        let requestedDropped = dropped.filter { server.count($0) > 0 }
        try await waitUntil(seconds: 3) { Set(server.abortedPaths) == Set(requestedDropped) }
        #expect(!requestedDropped.isEmpty, "some dropped photos were in flight")
        #expect(Set(server.abortedPaths) == Set(requestedDropped), "every dropped transfer in flight was aborted")
        #expect(requestedDropped.count <= 2, "queued dropped photos were never requested: \(requestedDropped)")
        #expect(preview.log.contains { $0.contains("superseding the build under way") })
        await preview.stop()
        try await server.shutdown()
    }
}
