import AsyncHTTPClient
import Foundation
import GalleryBuild
import Glibc
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import Preview

/// A running `gallerygen serve` in this process, with its log.
final class RunningPreview: Sendable {
    let task: Task<Void, any Error>
    let url: URL
    private let lines: Locked<[String]>

    var log: [String] { lines.value ?? [] }

    init(site: URL, poll: Duration? = nil, maxEventStreams: Int = 256) async throws {
        let lines = Locked<[String]>([])
        self.lines = lines
        let ready = AsyncStream.makeStream(of: URL.self)
        let server = PreviewServer(
            siteDirectory: site,
            configuration: PreviewServer.Configuration(port: 0, pollInterval: poll, maxEventStreams: maxEventStreams),
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
    /// Returns once the log holds a line that meets `condition`, as soon as it is logged.
    func waitForLog(_ condition: @escaping @Sendable (String) -> Bool) async throws {
        await lines.until { ($0 ?? []).contains(where: condition) }
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

    /// A feed that lists no photo for a moment (every entry of it gone): the rebuild writes
    /// nothing, and the preview serves the last good site, every photo of it, with the error.
    @Test func aBuildThatWouldShowNoPhotoKeepsServingTheLastGoodSite() async throws {
        let site = try FixtureSite(count: 2)
        let preview = try await RunningPreview(site: site.url)
        try await preview.waitForLog { $0.contains("2 photos") }
        let before = try site.snapshot()
        try site.writeFeed([])
        try await preview.waitForLog { $0.contains("the feed has no usable entry") }
        #expect(preview.log.contains { $0.contains("Serving the last good site.") }, "\(preview.log)")
        let after = try site.snapshot()
        #expect(after.mapValues(\.0) == before.mapValues(\.0), "the output as the last good build left it")
        let client = HTTPClient.shared
        let page = try await client.execute(HTTPClientRequest(url: preview.url.absoluteString), timeout: .seconds(10))
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        #expect(html.contains("Photo 1") && html.contains("Photo 2") && html.contains("no usable entry"))
        await preview.stop()
    }

    @Test func pollingRebuildsWhenTheRemoteFeedChangesAndOnlyThen() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Polled\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48]\n", to: "gallery.yml")
        let preview = try await RunningPreview(site: site.url, poll: .milliseconds(300))
        try await preview.waitForLog { $0.hasPrefix("2 photos") }
        let polledBefore = upstream.server.count("/feed.json")
        await upstream.server.seen { seen in seen.requests.filter { $0.path == "/feed.json" }.count >= polledBefore + 3
        }
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
        await server.seen { $0.requests.count >= 4 }
        #expect(server.requests.count == 4, "four in flight, the rest queued")

        let kept = Array(stride(from: 1, through: 19, by: 2))
        try site.writeFeed(feed(kept))
        try await preview.waitForLog { $0.hasPrefix("10 photos") }

        for number in kept {
            #expect(server.count("/photos/\(number).jpg") == 1, "kept photo \(number) requested exactly once")
        }
        let dropped = stride(from: 2, through: 20, by: 2).map { "/photos/\($0).jpg" }
        let requestedDropped = dropped.filter { server.count($0) > 0 }
        await server.seen { Set($0.aborted) == Set(requestedDropped) }
        #expect(!requestedDropped.isEmpty, "some dropped photos were in flight")
        #expect(Set(server.abortedPaths) == Set(requestedDropped), "every dropped transfer in flight was aborted")
        #expect(requestedDropped.count <= 2, "queued dropped photos were never requested: \(requestedDropped)")
        #expect(preview.log.contains { $0.contains("superseding the build under way") })
        await preview.stop()
        try await server.shutdown()
    }

    // MARK: Live-reload clients that go away (issue 10, case 5)

    /// The server's connections on `port` whose client has hung up and that the server keeps
    /// open (CLOSE-WAIT), from the kernel's table: other tests' sockets do not count.
    static func halfClosedConnections(onPort port: Int) -> Int {
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3, let local = fields[1].split(separator: ":").last,
                    Int(local, radix: 16) == port, fields[3] == "08"  // TCP_CLOSE_WAIT
                else { continue }
                count += 1
            }
        }
        return count
    }

    /// Runs blocking socket calls on a thread of their own, not on the cooperative pool the
    /// server in this process needs.
    static func blocking<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await offTheCooperativeThreads(work)
    }

    @Test(.timeLimit(.minutes(1))) func aClosedLiveReloadClientIsDroppedAtOnce() async throws {
        let site = try FixtureSite(count: 1)
        let preview = try await RunningPreview(site: site.url)
        let port = try #require(preview.url.port)
        let answered = try await Self.blocking {
            (0..<300).filter { _ in
                guard let client = try? RawClient(port: port) else { return false }
                defer { client.close() }
                try? client.send("GET /__gallerygen/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return (try? client.read(until: ": connected"))?.contains("200 OK") == true
            }.count
        }
        #expect(answered == 300)

        // Before: each stayed in CLOSE-WAIT on the server, holding a descriptor, until a rebuild.
        try await waitUntil(seconds: 10, "half-closed: \(Self.halfClosedConnections(onPort: port))") {
            Self.halfClosedConnections(onPort: port) == 0
        }
        await preview.stop()
    }

    @Test(.timeLimit(.minutes(1))) func liveReloadStreamsAreCapped() async throws {
        let site = try FixtureSite(count: 1)
        let preview = try await RunningPreview(site: site.url, maxEventStreams: 3)
        let port = try #require(preview.url.port)
        @Sendable func open() async throws -> (RawClient, String) {
            try await Self.blocking {
                let client = try RawClient(port: port)
                try client.send("GET /__gallerygen/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return (client, try client.read(until: "\r\n\r\n"))
            }
        }
        var open3: [(RawClient, String)] = []
        for _ in 0..<3 { open3.append(try await open()) }
        #expect(open3.allSatisfy { $0.1.hasPrefix("HTTP/1.1 200") })

        let (fourth, head) = try await open()
        #expect(head.hasPrefix("HTTP/1.1 503"), "\(head)")
        #expect(head.lowercased().contains("retry-after: 10"))
        fourth.close()

        open3[0].0.close()
        try await waitUntil(seconds: 10, "a closed stream frees its place") {
            guard let (client, head) = try? await open() else { return false }
            client.close()
            return head.hasPrefix("HTTP/1.1 200")
        }
        for (client, _) in open3.dropFirst() { client.close() }
        await preview.stop()
    }
}

/// A bare TCP client: what a browser tab does to the event stream, without a browser. Its calls
/// block; tests make them through ``PreviewServerTests/blocking(_:)``.
final class RawClient: Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else {
            Glibc.close(descriptor)
            throw TestImageError(message: "cannot connect to 127.0.0.1:\(port)")
        }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw TestImageError(message: "send failed")
        }
    }

    /// Reads until `marker` has arrived (or the five-second receive timeout passes).
    func read(until marker: String) throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw TestImageError(message: "connection ended before \(marker)") }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() {
        Glibc.close(descriptor)
    }
}
