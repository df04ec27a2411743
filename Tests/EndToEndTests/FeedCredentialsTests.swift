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
