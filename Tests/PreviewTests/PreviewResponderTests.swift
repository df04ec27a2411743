import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

@testable import Preview

@Suite struct PreviewResponderTests {
    let folder: TemporaryDirectory
    let liveReload = LiveReload()

    init() throws {
        folder = try TemporaryDirectory("preview")
        try folder.write("<!doctype html><html><body><p>Hello</p></body></html>", to: "public/index.html")
        try folder.write("body{}", to: "public/assets/style.css")
        try folder.write(Data([0x52, 0x49, 0x46, 0x46]), to: "public/images/0123456789abcdef-480.webp")
        try folder.write("{}", to: "public/gallery-manifest.json")
        try folder.write("secret: true", to: "gallery.yml")
        try FileManager.default.createSymbolicLink(
            at: folder.file("public/escape.yml"),
            withDestinationURL: folder.file("gallery.yml")
        )
    }

    func withApp(_ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = PreviewResponder.router(
            root: folder.file("public"), liveReload: liveReload, log: nil, logger: Logger(label: "test"))
        let app = Application(router: router)
        try await app.test(.router, test)
    }

    @Test func servesEachKindWithItsTypeAndCaching() async throws {
        try await withApp { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                let body = String(buffer: response.body)
                #expect(body.contains("<p>Hello</p>") && body.contains("new EventSource(\"/__gallerygen/events\")"))
            }
            try await client.execute(uri: "/assets/style.css", method: .get) { response in
                #expect(response.headers[.contentType] == "text/css; charset=utf-8")
            }
            try await client.execute(uri: "/images/0123456789abcdef-480.webp", method: .get) { response in
                #expect(response.headers[.contentType] == "image/webp")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            try await client.execute(uri: "/gallery-manifest.json", method: .get) { response in
                #expect(response.headers[.contentType] == "application/json")
            }
        }
        let onDisk = try String(contentsOf: folder.file("public/index.html"), encoding: .utf8)
        #expect(!onDisk.contains("EventSource"), "the script is added on the way out, never written")
    }

    @Test func answers304ToItsValidators() async throws {
        try await withApp { client in
            let etag = try await client.execute(uri: "/assets/style.css", method: .get) { $0.headers[.eTag] }
            let lastModified = try await client.execute(uri: "/assets/style.css", method: .get) {
                $0.headers[.lastModified]
            }
            #expect(etag != nil && lastModified != nil)
            try await client.execute(uri: "/assets/style.css", method: .get, headers: [.ifNoneMatch: etag ?? ""]) {
                response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(
                uri: "/assets/style.css", method: .get, headers: [.ifModifiedSince: lastModified ?? ""]
            ) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/assets/style.css", method: .get, headers: [.ifNoneMatch: "\"other\""]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func headHasHeadersAndNoBody() async throws {
        try await withApp { client in
            try await client.execute(uri: "/assets/style.css", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == "6")
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    /// RFC 9110's rules for `Range` on a 6-byte file: one range served (clipped), one past the
    /// end answered 416 with the size, a header that is not a byte range ignored (the whole file).
    @Test(
        arguments: [
            ("bytes=0-1", 206, "bo", "bytes 0-1/6"),
            ("bytes=2-", 206, "dy{}", "bytes 2-5/6"),
            ("bytes=-2", 206, "{}", "bytes 4-5/6"),
            ("bytes=4-100", 206, "{}", "bytes 4-5/6"),
            ("bytes=6-", 416, "", "bytes */6"),
            ("bytes=100-200", 416, "", "bytes */6"),
            ("bytes=-0", 416, "", "bytes */6"),
            ("bytes=abc", 200, "body{}", nil),
            ("bytes=5-2", 200, "body{}", nil),
            ("lines=1-2", 200, "body{}", nil),
            ("bytes=0-1,3-4", 200, "body{}", nil),
            ("bytes=99999999999999999999-", 200, "body{}", nil),
        ] as [(String, Int, String, String?)])
    func rangesFollowRFC9110(range: String, status: Int, body: String, contentRange: String?) async throws {
        try await withApp { client in
            try await client.execute(uri: "/assets/style.css", method: .get, headers: [.range: range]) { response in
                #expect(Int(response.status.code) == status, "\(range)")
                #expect(String(buffer: response.body) == body, "\(range)")
                #expect(response.headers[.contentRange] == contentRange, "\(range)")
            }
        }
    }

    @Test(arguments: [
        "/nothing.html", "/../gallery.yml", "/%2e%2e/gallery.yml", "/images/%2E%2E/%2E%2E/gallery.yml",
        "/images/..%2f..%2fgallery.yml", "//etc/passwd", "/etc/passwd", "/escape.yml", "/assets/..\\..\\gallery.yml",
        "/%00index.html",
    ])
    func nothingOutsideTheOutputFolder(path: String) async throws {
        try await withApp { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .notFound, "\(path)")
                #expect(!String(buffer: response.body).contains("secret"))
            }
        }
    }

    @Test func theNotFoundPageIsAPage() async throws {
        try await withApp { client in
            try await client.execute(uri: "/missing/<script>", method: .get) { response in
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let body = String(buffer: response.body)
                #expect(body.contains("Not found") && !body.contains("<script>alert"))
                #expect(!body.contains("/missing/<script>"), "the path is escaped")
            }
            try await client.execute(uri: "/", method: .post) { #expect($0.status == .methodNotAllowed) }
        }
    }

    @Test func aFailedBuildShowsItsErrorInThePage() async throws {
        liveReload.publish(.failed("gallery.yml:3:1: unknown key \"x\" </script>"))
        try await withApp { client in
            try await client.execute(uri: "/", method: .get) { response in
                let body = String(buffer: response.body)
                #expect(body.contains(#"banner("gallery.yml:3:1: unknown key \"x\" <\/script>")"#))
            }
        }
    }

    @Test func eventsAreServerSentEventText() {
        #expect(LiveReload.Event.reload.text == "event: reload\ndata: ok\n\n")
        #expect(LiveReload.Event.failed("a\nb").text == "event: failed\ndata: a\ndata: b\n\n")
    }
}
