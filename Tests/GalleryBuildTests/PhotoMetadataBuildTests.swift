import BuildStore
import Foundation
import GalleryCore
import GalleryJSON
import Loading
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

/// What the photos say, through the build: kept with the thumbnail sets, read once for sets
/// made before gallerygen read it, and what pages and the manifest carry.
@Suite struct PhotoMetadataBuildTests {
    func build(_ site: FixtureSite) async throws -> BuildReport {
        try await SiteBuilder(siteDirectory: site.url, options: BuildOptions()).build().report
    }

    /// A site of two photos whose EXIF says what they are.
    func site() throws -> FixtureSite {
        let site = try FixtureSite(count: 2, titles: ["", ""])
        for index in 1...2 {
            let image = TestImage(width: 160, height: 120, fill: TestImage.Color(UInt8(60 * index), 90, 160))
            try image.saveJPEG(
                to: site.folder.file("photos/p\(index).jpg"),
                exif: [
                    "exif-ifd0-ImageDescription": "Caption \(index)",
                    "exif-ifd2-DateTimeOriginal": "2024:05:0\(index) 10:00:00",
                ])
        }
        return site
    }

    func page(_ site: FixtureSite, _ text: String) throws -> Bool {
        try site.folder.allFiles(under: "public/photos").contains { path in
            try String(contentsOf: site.folder.file("public/photos/\(path)"), encoding: .utf8).contains(text)
        }
    }

    @Test func setsMadeBeforeMetadataWasReadGetItFromTheirOriginalsWithoutEncoding() async throws {
        let site = try site()
        let first = try await build(site)
        #expect(first.counts.processed == 2)
        #expect(try page(site, "<p>Caption 1</p>") && page(site, "<p>Caption 2</p>"))

        // The store as a build before this version left it: no set says it was read (written
        // with Python's sqlite3, not through the store, which keeps what a set has read).
        let file = site.folder.file(".gallerygen-cache/v1/\(BuildStore.fileName)")
        let store = BuildStore.open(at: file).store
        let keys = try await store.renditionSetSummaries().map(\.key)
        #expect(try await store.renditionSets(keys: keys).values.allSatisfy { $0.image.metadata?.description != nil })
        store.close()
        let python = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute('UPDATE rendition_set SET metadata_read = NULL, description = NULL'); c.commit()",
                file.path,
            ])
        #expect(python.status == 0, "\(python.standardError)")
        let cleared = BuildStore.open(at: file).store
        #expect(try await cleared.renditionSets(keys: keys).values.allSatisfy { $0.image.metadata == nil })
        cleared.close()
        // And pages made before: they must be made again with what the photos say.
        try FileManager.default.removeItem(at: site.folder.file("public"))

        let upgraded = try await build(site)
        #expect(upgraded.counts.processed == 0, "nothing is encoded again")
        #expect(try page(site, "<p>Caption 1</p>") && page(site, "<p>Caption 2</p>"))
        let reopened = BuildStore.open(at: file).store
        defer { reopened.close() }
        let read = try await reopened.renditionSets(keys: keys)
        #expect(read.values.compactMap { $0.image.metadata?.description }.sorted() == ["Caption 1", "Caption 2"])
        #expect(read.values.allSatisfy { $0.image.metadata?.taken != nil })
    }

    /// A set read by the gallerygen before places were read (`metadata_read` 1) reads its
    /// original once more; the store still gives what was read for a set whose original is gone.
    @Test func setsReadBeforePlacesWereReadAreReadAgainAndKeptMeanwhile() async throws {
        let site = try site()
        _ = try await build(site)
        let file = site.folder.file(".gallerygen-cache/v1/\(BuildStore.fileName)")
        let python = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute('UPDATE rendition_set SET metadata_read = 1, location = NULL'); c.commit()",
                file.path,
            ])
        #expect(python.status == 0, "\(python.standardError)")
        let store = BuildStore.open(at: file).store
        let keys = try await store.renditionSetSummaries().map(\.key)
        #expect(try await store.renditionSets(keys: keys).values.allSatisfy { $0.image.metadata == nil })
        let older = try await store.olderMetadata(keys: keys)
        #expect(older.values.compactMap(\.description).sorted() == ["Caption 1", "Caption 2"])
        store.close()

        // What a new gallerygen does (its binary is among what the up-to-date check compares).
        let upgraded = try await SiteBuilder(siteDirectory: site.url, options: BuildOptions(full: true)).build().report
        #expect(upgraded.counts.processed == 0)
        let reopened = BuildStore.open(at: file).store
        defer { reopened.close() }
        let read = try await reopened.renditionSets(keys: keys)
        #expect(read.values.compactMap { $0.image.metadata?.description }.sorted() == ["Caption 1", "Caption 2"])
    }

    @Test func theManifestCarriesWhatThePhotosSay() async throws {
        let site = try site()
        _ = try await build(site)
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        #expect(manifest.photos.compactMap { $0.metadata?.description }.sorted() == ["Caption 1", "Caption 2"])
        #expect(
            manifest.photos.compactMap { $0.metadata?.taken?.local }.sorted() == [
                "2024-05-01T10:00:00", "2024-05-02T10:00:00",
            ])
    }

    /// A signed record read back from the published manifest still verifies: what the photo
    /// says, cut to its bounds, is cut the same way when read again.
    @Test func aSignedRecordWithLongTextVerifiesWhenReadBack() async throws {
        let key = try #require(SigningKey(secret: "site-secret-for-tests"))
        var record = ManifestPhoto(id: "1", source: "photos/a.jpg", sha256: "ab", validators: nil, renditions: [])
        record.metadata = PhotoMetadata(
            title: String(repeating: "t", count: 1_000), description: String(repeating: "line\r\n", count: 2_000),
            keywords: ["a", "b"], taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "Z"),
            creator: "Ada\u{7}"
        ).bounded()
        let signed = record.signed(with: key)
        let manifest = Manifest(photos: [signed], files: [])
        let read = try Manifest.decode(await manifest.encoded())
        #expect(read.photos[0].metadata == signed.metadata)
        #expect(read.photos[0].isSigned(by: key))
    }
}
