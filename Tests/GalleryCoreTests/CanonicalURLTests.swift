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
