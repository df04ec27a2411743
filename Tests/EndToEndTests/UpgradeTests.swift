import Foundation
import TestSupport
import Testing

/// A site whose cache an earlier gallerygen wrote, built by this one: the cache is taken over on
/// the first build, and nothing is downloaded or encoded again.
///
/// `Fixtures/cache-0.1.0` is a site folder (gallery.yml, its cache and its output) as gallerygen
/// 0.1.0 at commit e618fbd left it after building an ``Upstream`` of four photos; the upstream's
/// address is written `http://UPSTREAM` there. It was made by ``makeUpgradeFixture()``, which
/// runs only when asked:
///
///     GALLERYGEN_OLD_BINARY=/path/to/old/gallerygen \
///     GALLERYGEN_MAKE_UPGRADE_FIXTURE=Tests/EndToEndTests/Fixtures/cache-0.1.0 \
///     swift test --filter makeUpgradeFixture
///
/// `Fixtures/cache-store-v9` is the same site as gallerygen left it at commit 19fa7f3, the last
/// before each stage came to own its tables in the build store (its schema at v9, one module
/// knowing every table), made the same way with that binary.
@Suite(.timeLimit(.minutes(3))) struct UpgradeTests {
    static let placeholder = "http://UPSTREAM"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The text files of a site folder in which the upstream's address appears.
    static func textFiles(in folder: URL) -> [URL] {
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walk?.allObjects as? [URL] ?? []).filter { url in
            ["yml", "json", "html", "xml"].contains(url.pathExtension) || url.lastPathComponent == "rendered-pages"
        }
    }

    static func replace(_ old: String, with new: String, in folder: URL) async throws {
        for file in textFiles(in: folder) {
            guard let text = try? String(contentsOf: file, encoding: .utf8), text.contains(old) else { continue }
            try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
        }
        // A cache with a build store holds the addresses in its URL records (written with
        // Python's sqlite3, not through the store, as another program would).
        let store = folder.appendingPathComponent(".gallerygen-cache/v1/store.sqlite")
        guard FileManager.default.fileExists(atPath: store.path) else { return }
        let columns = ["url", "final_url", "redirects", "link"].map { "\($0) = replace(\($0), ?, ?)" }
        let python = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute('UPDATE url_record SET \(columns.joined(separator: ", "))', sys.argv[2:] * 4); "
                    + "c.commit(); c.execute('PRAGMA wal_checkpoint(TRUNCATE)')",
                store.path, old, new,
            ])
        #expect(python.status == 0, "\(python.standardError)")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["GALLERYGEN_MAKE_UPGRADE_FIXTURE"] != nil))
    func makeUpgradeFixture() async throws {
        let environment = ProcessInfo.processInfo.environment
        let destination = URL(fileURLWithPath: try #require(environment["GALLERYGEN_MAKE_UPGRADE_FIXTURE"]))
        let old = URL(fileURLWithPath: try #require(environment["GALLERYGEN_OLD_BINARY"]))
        let upstream = try await Upstream(count: 4)
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Upgrade\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")
        let run = try await CommandRun.running(old, ["build", site.url.path, "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: site.url, to: destination)
        try await Self.replace(upstream.server.baseURL, with: Self.placeholder, in: destination)
        try await upstream.server.shutdown()
    }

    @Test(arguments: ["cache-0.1.0", "cache-store-v9"])
    func aCacheOfAnEarlierGallerygenIsTakenOverWithoutDownloadingOrEncoding(fixture: String) async throws {
        let upstream = try await Upstream(count: 4)
        let folder = try TemporaryDirectory("upgrade")
        let site = folder.file("site")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(fixture), to: site)
        try await Self.replace(Self.placeholder, with: upstream.server.baseURL, in: site)
        let beforeTheStore = fixture == "cache-0.1.0"
        #expect(
            FileManager.default.fileExists(atPath: site.appendingPathComponent(".gallerygen-cache/v1/index.json").path)
                == beforeTheStore)

        let report = folder.file("report.json")
        let run = try await CommandRun.gallerygen(["build", site.path, "--quiet", "--report", report.path])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let counts = json?["counts"] as? [String: Int] ?? [:]
        #expect(counts["downloaded"] == 0 && counts["processed"] == 0, "\(counts)")
        #expect(counts["not_modified"] == 4, "each photo revalidated, 304: \(counts)")
        #expect(upstream.photoRequests.allSatisfy { $0.isConditional })
        #expect(
            !FileManager.default.fileExists(atPath: site.appendingPathComponent(".gallerygen-cache/v1/index.json").path)
        )
        #expect(
            FileManager.default.fileExists(
                atPath: site.appendingPathComponent(".gallerygen-cache/v1/store.sqlite").path))
        // The thumbnail sets' records moved into the store, with their thumbnails' files kept.
        let renditions = try FileManager.default.contentsOfDirectory(
            atPath: site.appendingPathComponent(".gallerygen-cache/v1/renditions").path)
        #expect(!renditions.contains { $0.hasSuffix(".json") }, "\(renditions)")
        #expect(renditions.count == 4 * 2, "4 photos, 2 widths, 1 format: \(renditions)")
        let info = try await CommandRun.gallerygen(["cache", "info", site.path])
        #expect(info.standardOutput.contains("thumbnail sets: 4"), "\(info.standardOutput)")

        // The site is the one this version writes from scratch.
        let clean = try FixtureSite(count: 0)
        try clean.folder.write(
            "title: Upgrade\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")
        #expect(try await CommandRun.gallerygen(["build", clean.url.path, "--quiet"]).status == 0)
        let upgraded = folder.allFiles(under: "site/public").map { path in
            (path, (try? Data(contentsOf: site.appendingPathComponent("public/\(path)"))) ?? Data())
        }
        let expected = try clean.snapshot().mapValues(\.0)
        #expect(Dictionary(uniqueKeysWithValues: upgraded) == expected)

        // And the build after it finds everything in the store.
        upstream.server.resetCounts()
        let again = try await CommandRun.gallerygen(["build", site.path, "--quiet", "--report", report.path])
        #expect(again.status == 0)
        let againCounts =
            (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["counts"]
            as? [String: Int] ?? [:]
        #expect(againCounts["downloaded"] == 0 && againCounts["processed"] == 0 && againCounts["not_modified"] == 4)
        try await upstream.server.shutdown()
    }
}
