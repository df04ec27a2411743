import AsyncHTTPClient
import Foundation
import Loading
import TestSupport
import Testing

/// A private S3 bucket as the feed (`feed: s3://bucket/prefix`), on moto's server, which checks
/// every signature: a listing of several pages, folders as albums, keys with spaces and accents,
/// what is no image passed over, an unchanged bucket revalidated by ETag, a changed object
/// loaded again, and a wrong secret refused.
@Suite(.timeLimit(.minutes(5))) struct S3FeedTests {
    static let keys: [(String, Int)] = [
        ("photos/a.jpg", 1), ("photos/b.jpg", 2), ("photos/Iceland/falls 1.jpg", 3),
        ("photos/Iceland/Vestfirðir.jpg", 4), ("photos/Iceland/notes.txt", 0), ("photos/.hidden.jpg", 5),
        ("photos/2019/Summer/beach.JPG", 6), ("photos/2019/c.jpg", 7), ("elsewhere/d.jpg", 8),
    ]

    func run(_ site: FixtureSite, _ environment: [String: String]) async throws -> (CommandRun, [String: Int]) {
        let report = site.folder.file("report-\(UUID().uuidString.prefix(6)).json")
        let run = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path], environment: environment)
        let json = (try? JSONSerialization.jsonObject(with: Data(contentsOf: report))) as? [String: Any]
        return (run, json?["counts"] as? [String: Int] ?? [:])
    }

    @Test func aPrivateBucketIsReadPageByPageWithItsFoldersAsAlbums() async throws {
        let s3 = try await S3TestServer.started()
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            try await readTheBucket(s3, client: client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func readTheBucket(_ s3: S3TestServer, client: HTTPClient) async throws {
        let details = s3.details
        let credentials = SigV4Signer.Credentials(accessKey: details.accessKey, secretKey: details.secretKey)
        let bucket = try #require(
            S3RemoteStore(
                bucket: details.bucket, prefix: "", endpoint: URL(string: details.endpoint), region: details.region,
                credentials: credentials, client: client))
        for (key, photo) in Self.keys {
            try await bucket.put(key, photo == 0 ? Data("not a photo".utf8) : Data(TestPhotos.jpeg(photo)))
        }
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            """
            title: Bucket
            feed:
              url: s3://\(details.bucket)/photos
              paging: {page_size: 3}
            images:
              widths: [48]
            """, to: "gallery.yml")

        let (first, counts) = try await run(site, s3.environment())

        #expect(first.status == 0, "\(first.standardError)")
        #expect(counts["photos"] == 6 && counts["failed"] == 0, "\(counts)")
        // Eight keys under photos/, three a page: three listing requests, and six photos.
        #expect(counts["requests"] == 9 && counts["downloaded"] == 6, "\(counts)")
        let index = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        for album in ["Iceland", "2019"] { #expect(index.contains(">\(album)<"), "album \(album)") }
        let manifest = try String(contentsOf: site.folder.file("public/gallery-manifest.json"), encoding: .utf8)
        #expect(!manifest.contains(".hidden.jpg") && !manifest.contains("notes.txt"))
        #expect(manifest.contains("/photos/Iceland/Vestfir%C3%B0ir.jpg"), "the key encoded as S3 signs it")
        #expect(manifest.contains("/photos/Iceland/falls%201.jpg"))
        #expect(!manifest.contains("elsewhere"), "only the prefix's keys")

        // Nothing changed: the listing's ETags are the cached copies' own, so the three listing
        // pages are the only requests.
        let (again, unchanged) = try await run(site, s3.environment())
        #expect(again.status == 0, "\(again.standardError)")
        #expect(unchanged["requests"] == 3 && unchanged["fresh"] == 6, "\(unchanged)")
        #expect(unchanged["downloaded"] == 0 && unchanged["processed"] == 0, "\(unchanged)")

        // --refresh asks for each object with its ETag all the same: six 304s (the counts are
        // the photos'; the listing pages are among the requests).
        let refresh = try await CommandRun.gallerygen(
            ["build", site.url.path, "--refresh"], environment: s3.environment())
        #expect(refresh.status == 0, "\(refresh.standardError)")
        #expect(refresh.standardOutput.contains("9 requests (0 × 200, 6 × 304)"), "\(refresh.standardOutput)")

        // One object replaced: it alone is loaded again.
        try await bucket.put("photos/b.jpg", Data(TestPhotos.jpeg(9)))
        let (changed, oneNew) = try await run(site, s3.environment())
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(oneNew["downloaded"] == 1 && oneNew["processed"] == 1, "\(oneNew)")

        // A wrong secret: the listing is refused, and the build says so and writes nothing new.
        let before = try site.snapshot().mapValues(\.0)
        let (refused, _) = try await run(site, s3.environment(secretKey: "not-the-secret"))
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("403"), "\(refused.standardError)")
        #expect(!refused.standardError.contains(details.secretKey))
        #expect(try site.snapshot().mapValues(\.0) == before, "the site stays as it was")
    }
}
