import Foundation
import TestSupport
import Testing

/// A feed behind a secret (`feed.auth`), built by the gallerygen binary as CI runs it: the
/// secret reaches the feed's own host on every request there, and nothing else: not another
/// host (asked directly or through a redirect), not the log, the report, the site or the cache.
@Suite(.timeLimit(.minutes(5))) struct FeedCredentialsTests {
    static let secret = "s3cr3t-T0ken+/="
    static let user = "gallery-reader"

    /// Whether `request` carries the secret the way `kind` sends it.
    static func carries(_ request: TestHTTPServer.Request, kind: String) -> Bool {
        switch kind {
        case "query":
            let items = URLComponents(string: request.uri)?.queryItems ?? []
            return items.contains { $0.name == "key" && $0.value == secret }
        case "bearer": return request.headers["authorization"] == "Bearer \(secret)"
        case "header": return request.headers["x-api-key"] == secret
        default:
            return request.headers["authorization"] == "Basic " + Data("\(user):\(secret)".utf8).base64EncodedString()
        }
    }

    /// Every form the secret could be written in.
    static var secretForms: [String] {
        [
            secret, secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret,
            "s3cr3t-T0ken%2B%2F%3D", "s3cr3t-T0ken%2B/=", Data("\(user):\(secret)".utf8).base64EncodedString(),
        ]
    }

    static func anyHolds(_ text: String) -> Bool { secretForms.contains { text.contains($0) } }

    @Test(arguments: ["query", "bearer", "header", "basic"])
    func theSecretGoesToTheFeedsHostOnlyAndIsWrittenNowhere(kind: String) async throws {
        let other = try await TestHTTPServer { request in
            request.path == "/photos/3.jpg" || request.path == "/photos/2.jpg"
                ? .photo(Int(request.path.dropFirst(8).prefix(1)) ?? 1) : .text(404)
        }
        let otherBase = other.baseURL
        let own = try await TestHTTPServer { request in
            guard Self.carries(request, kind: kind) else { return .text(401, "who are you?") }
            let base = "http://\(request.headers["host"] ?? "")"
            switch request.path {
            case "/feed":
                let page = request.uri.contains("page=2") ? 2 : 1
                if page == 1 {
                    // A server that echoes the key in its next link and in an image URL.
                    let entries = [
                        #"{"title": "Own", "imageUrl": "\#(base)/photos/1.jpg?size=l&key=\#(Self.secret)"}"#,
                        #"{"title": "Moved", "imageUrl": "\#(base)/moved/2.jpg"}"#,
                    ]
                    // The next link echoes it percent-encoded, as encodeURIComponent writes it.
                    return .init(
                        headers: [
                            ("Content-Type", "application/json"),
                            ("Link", "<\(base)/feed?page=2&key=s3cr3t-T0ken%2B%2F%3D>; rel=\"next\""),
                        ],
                        body: Array(("[" + entries.joined(separator: ",") + "]").utf8))
                }
                let entries = [
                    #"{"title": "Elsewhere", "imageUrl": "\#(otherBase)/photos/3.jpg"}"#,
                    #"{"title": "Missing", "imageUrl": "\#(base)/photos/404.jpg"}"#,
                ]
                return .init(
                    headers: [("Content-Type", "application/json")],
                    body: Array(("[" + entries.joined(separator: ",") + "]").utf8))
            case "/photos/1.jpg": return .photo(1)
            case "/moved/2.jpg":
                // A redirect to another host that repeats the secret in its Location.
                return .init(
                    status: 302, headers: [("Location", "\(otherBase)/photos/2.jpg?key=s3cr3t-T0ken%2B%2F%3D")])
            default: return .text(404, "no such photo")
            }
        }
        let way: String
        switch kind {
        case "query": way = "{query: key, env: PHOTOS_SECRET}"
        case "bearer": way = "{bearer: PHOTOS_SECRET}"
        case "header": way = "{header: X-Api-Key, env: PHOTOS_SECRET}"
        default: way = "{basic: \(Self.user), env: PHOTOS_SECRET}"
        }
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            """
            title: Private
            feed:
              url: \(own.baseURL)/feed
              auth: \(way)
            images:
              widths: [48]
            """, to: "gallery.yml")
        let report = site.folder.file("report.json")

        let run = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path, "--verbose"],
            environment: ["PHOTOS_SECRET": Self.secret])

        #expect(run.status == 0, "\(run.standardError)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let counts = json?["counts"] as? [String: Int] ?? [:]
        #expect(counts["photos"] == 4 && counts["failed"] == 1, "\(counts)")
        #expect(own.requests.count == 5, "two pages, three photos: \(own.requests.map(\.uri))")
        #expect(own.requests.allSatisfy { Self.carries($0, kind: kind) })
        #expect(other.requests.count == 2, "asked directly, and through the redirect")
        for request in other.requests {
            #expect(!Self.anyHolds(request.uri + request.headers.values.joined()), "\(request)")
        }
        #expect(!Self.anyHolds(run.standardOutput + run.standardError), "\(run.standardError)")
        #expect(run.standardError.contains("/photos/404.jpg"), "the failure is reported, without the secret")
        for path in site.folder.allFiles() {
            let data = try Data(contentsOf: site.folder.file(path))
            let text = String(decoding: data, as: UTF8.self)
            #expect(!Self.anyHolds(text), "\(path) holds the secret")
        }
        try await own.shutdown()
        try await other.shutdown()
    }

    /// A server that repeats the secret in what it answers (a title, a caption, a link, an image's
    /// address, a redirect to another host in a bare query): the build publishes it nowhere, and
    /// the other host never sees it.
    @Test func aSecretTheServerRepeatsIsPublishedNowhere() async throws {
        let encoded = "s3cr3t-T0ken%2B%2F%3D"
        let other = try await TestHTTPServer { request in .photo(3) }
        let otherBase = other.baseURL
        let own = try await TestHTTPServer { request in
            guard Self.carries(request, kind: "bearer") else { return .text(401, "who are you?") }
            let base = "http://\(request.headers["host"] ?? "")"
            switch request.path {
            case "/feed":
                let entries = [
                    #"{"title": "Holiday \#(Self.secret)", "description": "Key: \#(encoded), and \#(Self.secret)", "#
                        + #""link": "\#(base)/page?\#(encoded)", "album": "Trips \#(Self.secret)", "#
                        + #""imageUrl": "\#(base)/photos/1.jpg"}"#,
                    #"{"title": "In its path", "imageUrl": "\#(base)/p/\#(encoded)/2.jpg"}"#,
                    #"{"title": "Moved", "imageUrl": "\#(base)/moved/3.jpg"}"#,
                    #"{"title": "Moved again", "imageUrl": "\#(base)/moved/4.jpg"}"#,
                ]
                return .init(
                    headers: [("Content-Type", "application/json")],
                    body: Array(("[" + entries.joined(separator: ",") + "]").utf8))
            case "/photos/1.jpg": return .photo(1)
            case "/moved/3.jpg":
                // To another host, the secret as a bare query: followed without it.
                return .init(status: 302, headers: [("Location", "\(otherBase)/photos/3.jpg?\(encoded)")])
            case "/moved/4.jpg":
                // To another host, the secret in the path: not followed.
                return .init(status: 302, headers: [("Location", "\(otherBase)/\(encoded)/4.jpg")])
            default: return .text(404, "no such photo: \(Self.secret)")
            }
        }
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Private\nfeed:\n  url: \(own.baseURL)/feed\n  auth: {bearer: PHOTOS_SECRET}\n"
                + "images:\n  widths: [48]\nbase_url: https://example.com/\n", to: "gallery.yml")
        let report = site.folder.file("report.json")

        let run = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path, "--verbose"],
            environment: ["PHOTOS_SECRET": Self.secret])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(other.requests.map(\.uri) == ["/photos/3.jpg"], "one redirect followed without the secret, one not")
        for request in other.requests {
            #expect(!Self.anyHolds(request.uri + request.headers.values.joined()), "\(request)")
        }
        #expect(run.standardError.contains("not followed"), "\(run.standardError)")
        #expect(run.standardError.contains("its image address holds the feed's secret"), "\(run.standardError)")
        #expect(!Self.anyHolds(run.standardOutput + run.standardError), "\(run.standardError)")
        let page = try WhatPhotosSayTests.page(site, containing: "<h1>Holiday [redacted]</h1>")
        #expect(page.contains("Key: [redacted], and [redacted]"), "\(page)")
        for path in site.folder.allFiles() {
            let text = String(decoding: try Data(contentsOf: site.folder.file(path)), as: UTF8.self)
            #expect(!Self.anyHolds(text), "\(path) holds the secret")
        }
        try await own.shutdown()
        try await other.shutdown()
    }

    /// A service's error message is said with its control characters (a terminal's escape
    /// sequences) shown as `�`, and without the secret it repeats.
    @Test func aServersMessageReachesTheTerminalWithoutItsControlsOrTheSecret() async throws {
        let own = try await TestHTTPServer { request in
            .init(
                headers: [("Content-Type", "application/json")],
                body: Array(
                    #"{"stat": "fail", "err": 1002, "message": "\u001b]0;owned\u0007bad key \#(Self.secret) \u001b[31mred\u009b2J"}"#
                        .utf8))
        }
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Piwigo\nfeed:\n  url: \(own.baseURL)/ws.php?format=json\n  format: piwigo\n"
                + "  auth: {query: key, env: PHOTOS_SECRET}\n", to: "gallery.yml")

        let run = try await CommandRun.gallerygen(
            ["build", site.url.path], environment: ["PHOTOS_SECRET": Self.secret])

        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains("Piwigo answered"), "\(run.standardError)")
        #expect(run.standardError.contains("bad key [redacted]"), "\(run.standardError)")
        let controls = run.standardError.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
        }
        #expect(controls.isEmpty, "\(controls.map(\.value))")
        #expect(!Self.anyHolds(run.standardOutput + run.standardError))
        try await own.shutdown()
    }

    /// What a CI job's unset secret becomes: a variable set to nothing, or to white space.
    @Test(arguments: ["", "   ", "\n"])
    func aBlankSecretIsAnErrorThatSaysSo(value: String) async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Private\nfeed:\n  url: http://127.0.0.1:9/feed\n  auth: {bearer: PHOTOS_SECRET}\n",
            to: "gallery.yml")

        let run = try await CommandRun.gallerygen(["build", site.url.path], environment: ["PHOTOS_SECRET": value])

        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("PHOTOS_SECRET"), "\(run.standardError)")
        #expect(
            run.standardError.contains("is set but empty") || run.standardError.contains("is set but only white space"),
            "\(run.standardError)")
    }

    /// A local feed file names photos in the site folder or beside itself; one outside them is a
    /// skipped entry unless `follow_symlinks: true`.
    @Test func aLocalFeedCannotNameFilesOutsideTheSite() async throws {
        // Both in the temporary folder: `../NAME/private.jpg` from the site is the other one.
        let outside = try TemporaryDirectory("outside")
        try TestImage(width: 40, height: 30, fill: .white).saveJPEG(to: outside.file("private.jpg"))
        let site = try FixtureSite(count: 1)
        #expect(site.url.deletingLastPathComponent().path == outside.url.deletingLastPathComponent().path)
        try site.writeFeed([
            #"{"title": "Inside", "imageUrl": "photos/p1.jpg"}"#,
            #"{"title": "Absolute", "imageUrl": "\#(outside.file("private.jpg").absoluteString)"}"#,
            #"{"title": "Relative", "imageUrl": "../\#(outside.url.lastPathComponent)/private.jpg"}"#,
        ])

        let closed = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(closed.status == 0, "\(closed.standardError)")
        #expect(
            closed.standardError.components(separatedBy: "names a file outside the site folder").count == 3,
            "\(closed.standardError)")
        #expect(site.folder.allFiles(under: "public/photos").filter { $0.hasSuffix(".html") }.count == 1)

        let config = try String(contentsOf: site.folder.file("gallery.yml"), encoding: .utf8)
        try site.folder.write(config + "\nfollow_symlinks: true\n", to: "gallery.yml")
        let open = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(open.status == 0, "\(open.standardError)")
        #expect(!open.standardError.contains("outside the site folder"))
        #expect(site.folder.allFiles(under: "public/photos").filter { $0.hasSuffix(".html") }.count == 3)
    }

    @Test func aSecretWhoseVariableIsNotSetStopsTheBuildNamingTheLine() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            """
            title: Private
            feed:
              url: http://127.0.0.1:9/feed
              auth: {bearer: PHOTOS_SECRET_NOT_SET}
            """, to: "gallery.yml")

        let run = try await CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 2, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "gallery.yml:4:9: `feed.auth` takes the secret from the environment variable PHOTOS_SECRET_NOT_SET, which is not set"
            ), "\(run.standardError)")
    }
}
