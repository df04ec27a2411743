import Foundation
import Testing

@testable import GalleryCore

@Suite struct CanonicalURLTests {
    @Test func hostCaseDefaultPortAndFragmentDoNotMatter() throws {
        let spellings = [
            "http://example.com/a.jpg", "HTTP://Example.COM/a.jpg", "http://example.com:80/a.jpg",
            "http://example.com/a.jpg#top",
        ]
        let canonical = Set(spellings.compactMap(CanonicalURL.init(string:)))
        #expect(canonical.count == 1)
        #expect(canonical.first?.description == "http://example.com/a.jpg")
    }

    @Test func queryOrderAndPathCaseDoMatter() {
        let a = CanonicalURL(string: "https://example.com/p?a=1&b=2")
        let b = CanonicalURL(string: "https://example.com/p?b=2&a=1")
        let c = CanonicalURL(string: "https://example.com/P?a=1&b=2")
        #expect(a != b)
        #expect(a != c)
        #expect(CanonicalURL(string: "https://example.com:443/p?a=1&b=2") == a)
        #expect(CanonicalURL(string: "https://example.com:8443/p?a=1&b=2") != a)
    }

    @Test func onlyWebAndFileURLs() {
        #expect(CanonicalURL(string: "javascript:alert(1)") == nil)
        #expect(CanonicalURL(string: "ftp://example.com/a.jpg") == nil)
        #expect(CanonicalURL(URL(fileURLWithPath: "/a/b/../c.jpg"))?.url.path == "/a/c.jpg")
    }
}

@Suite struct ManifestTests {
    @Test func encodesSortedAndStable() throws {
        let manifest = Manifest(
            photos: [
                ManifestPhoto(
                    id: "1", source: "https://x/a.jpg", sha256: "ab", validators: Validators(etag: "W/\"1\""),
                    renditions: [])
            ],
            files: ["a.html", "images/x.webp"]
        )
        let text = String(decoding: try manifest.encoded(), as: UTF8.self)
        #expect(text.contains("\"etag\" : \"W/\\\"1\\\"\""))
        #expect(text.range(of: "\"files\"")!.lowerBound < text.range(of: "\"photos\"")!.lowerBound)
        #expect(try Manifest.decode(try manifest.encoded()) == manifest)
        #expect(try manifest.encoded() == (try manifest.encoded()))
    }
}

@Suite struct AsyncSemaphoreTests {
    @Test func neverLetsMoreThanItsPermitsIn() async throws {
        let semaphore = AsyncSemaphore(permits: 3)
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await semaphore.withPermit {
                        await gauge.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        await gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await gauge.peak == 3)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let semaphore = AsyncSemaphore(permits: 1)
        try await semaphore.acquire()
        let waiter = Task { try await semaphore.acquire() }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await semaphore.release()
        try await semaphore.acquire()  // the permit went back, not to the cancelled waiter
    }
}

actor Gauge {
    private(set) var current = 0
    private(set) var peak = 0

    func enter() {
        current += 1
        peak = max(peak, current)
    }

    func leave() { current -= 1 }
}
