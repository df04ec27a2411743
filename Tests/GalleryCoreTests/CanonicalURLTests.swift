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

/// The shortcut for URLs already canonical gives what URLComponents gives, and takes no URL that
/// URLComponents would change.
@Suite struct CanonicalURLShortcutTests {
    static let spellings = [
        "http://example.com/a.jpg", "https://example.com/", "http://127.0.0.1:8092/photos/000123.jpg",
        "https://cdn.example.com:8443/p/a%20b.jpg?w=480&fit=crop", "http://example.com/a/../b/./c.jpg",
        "http://example.com/~user/photo(1).jpg;v=2", "https://example.com/p?q=a:b@c/d?e",
        "http://example.com/%7Efoo/%c3%a9.jpg", "http://xn--bcher-kva.example/a.jpg",
        "http://example.com/a.jpg?", "https://example.com/p?a=1&a=2&b",
        // Not canonical as written: the shortcut must decline them.
        "HTTP://example.com/a.jpg", "http://Example.com/a.jpg", "http://example.com:80/a.jpg",
        "https://example.com:443/a.jpg", "http://example.com:080/a.jpg", "http://example.com/a.jpg#top",
        "http://example.com", "http://user:pw@example.com/a.jpg", "http://example.com:/a.jpg",
        "http://example.com/a b.jpg", "http://example.com/%zz.jpg", "http://example.com/é.jpg",
        "http://[::1]:8080/a.jpg", "http://example.com:99999/a.jpg", "http://example.com/a\\b.jpg",
        "http://example.com/a.jpg?x=<y>", "http://exa_mple.com/a.jpg",
    ]

    @Test(arguments: spellings) func shortcutAgreesWithURLComponents(_ spelling: String) throws {
        guard let url = URL(string: spelling) else { return }
        let slow = CanonicalURL.canonicalizing(url)?.absoluteString
        if CanonicalURL.isCanonical(url.absoluteString) {
            #expect(slow == url.absoluteString, "the shortcut kept \(spelling), URLComponents gives \(slow ?? "nil")")
        }
        #expect(CanonicalURL(url)?.description == slow)
    }

    @Test func declinesWhatItShould() {
        for spelling in [
            "HTTP://example.com/a.jpg", "http://example.com:80/a.jpg", "http://example.com/a.jpg#top",
            "http://example.com", "http://user@example.com/a.jpg", "http://example.com:080/a.jpg",
        ] {
            #expect(!CanonicalURL.isCanonical(spelling), "\(spelling)")
        }
        #expect(CanonicalURL.isCanonical("http://127.0.0.1:8092/photos/000123.jpg"))
        #expect(CanonicalURL.isCanonical("https://example.com/p?a=1&b=2"))
    }

    /// A path standard already is taken as it is; any other is standardized, as Foundation does.
    @Test(arguments: [
        "/a/b.jpg", "/a/.hidden/b.jpg", "/a/...", "/a/b..c", "/", "/a/./b", "/a/../b", "/a//b", "/a/", "/a/.",
        "/a/..", "a/b", "", "/.", "/..",
    ])
    func aStandardPathIsToldApart(_ path: String) {
        let standard = URL(fileURLWithPath: path.isEmpty ? "/" : path).standardizedFileURL.path
        if path.isStandardPath { #expect(standard == path, "\(path)") }
        #expect(
            path.isStandardPath
                == ["/a/b.jpg", "/a/.hidden/b.jpg", "/a/...", "/a/b..c"].contains(path), "\(path)")
        if path.hasPrefix("/") {
            #expect(CanonicalURL(URL(fileURLWithPath: path))?.url.path == standard, "\(path)")
        }
    }
}
