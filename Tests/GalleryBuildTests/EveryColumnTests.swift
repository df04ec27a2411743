import Foundation
import GalleryCore
import Rendering
import TestSupport
import Testing

@testable import BuildStore
@testable import GalleryBuild
@testable import Loading

/// Every field of every record the store keeps reads back as it was written. Each record is
/// written with every field set (checked by Mirror: a field added to a record and not given a
/// value here fails the first expectation), so a field added to a record but not to its table's
/// write or read fails the round trip.
@Suite struct EveryColumnTests {
    /// The labels, as `path.to.field`, of the fields of `value` that hold nothing: a nil, an empty
    /// list or text, a false. Nested values of the core's record types are looked into.
    static func unset(in value: Any, at path: String = "") -> [String] {
        var found: [String] = []
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            let place = path.isEmpty ? label : "\(path).\(label)"
            let mirror = Mirror(reflecting: child.value)
            var inner = child.value
            if mirror.displayStyle == .optional {
                guard let some = mirror.children.first?.value else {
                    found.append(place)
                    continue
                }
                inner = some
            }
            switch inner {
            case let list as [Any] where list.isEmpty: found.append(place)
            case let text as String where text.isEmpty: found.append(place)
            case let flag as Bool where !flag: found.append(place)
            case let list as [Any]:
                for (index, element) in list.enumerated() { found += unset(in: element, at: "\(place)[\(index)]") }
            case is ProcessedImage, is PhotoMetadata, is CameraDetails, is VideoDetails, is Placeholder, is Rendition,
                is CaptureTime, is FileStamp, is PageRecord, is PublishedFiles, is UpToDateRecord:
                found += unset(in: inner, at: place)
            default: break
            }
        }
        return found
    }

    static let urlRecord: CacheRecord = {
        var record = BuildStoreTests.full
        record.link = "<https://example.com/feed?page=2>; rel=\"next\""
        return record
    }()

    static let renditionSet: RenditionSetRecord = {
        let said = PhotoMetadata(
            title: "Harbour", description: "Boats at dawn", alt: "Three boats", keywords: ["sea", "dawn"],
            taken: CaptureTime(local: "2024-05-01T06:12:09", offset: "+02:00"), rating: 4, creator: "Ana Lima",
            rights: "© Ana Lima", licence: "https://creativecommons.org/licenses/by/4.0/",
            location: GeoPoint(latitude: 59.91273, longitude: 10.74609))
        var image = ProcessedImage(
            width: 4000, height: 3000,
            renditions: [
                Rendition(
                    format: .avif, width: 480, height: 360, path: "images/a-480.avif", byteCount: 1234, sha256: "ab"),
                Rendition(
                    format: .mp4, width: 1280, height: 720, path: "images/a-720p.mp4", byteCount: 56_789, sha256: "cd"),
            ],
            placeholder: Placeholder(color: "#102030", dataURI: "data:image/webp;base64,AAAA"), hasTransparency: true,
            camera: CameraDetails(
                camera: "Canon EOS R5", lens: "RF 24-105mm", focalLength: "50 mm", aperture: "ƒ/4",
                exposure: "1/250 s", iso: "ISO 400", taken: "2024-05-01 06:12"),
            metadata: said, video: VideoDetails(duration: 7.5, hasAudio: true, recipe: "720|mp4|sound|ffmpeg 5.1"))
        // A Live Photo's motion is found beside its still by each build, never kept in a set.
        image.motion = []
        return RenditionSetRecord(
            image: image,
            stamps: [
                FileStamp(size: 1234, modified: 1_763_800_000_123_456_789, inode: .max),
                FileStamp(size: 56_789, modified: 1_763_800_000_000_000_001, inode: 42),
            ],
            lastUsed: 1_763_800_000.5)
    }()

    @Test func aURLRecordKeepsEveryField() async throws {
        #expect(Self.unset(in: Self.urlRecord) == [], "every field of the record given a value")
        let folder = try TemporaryDirectory("store")
        let opening = BuildStore.open(at: folder.file("store.sqlite"))
        try await opening.store.save(urlRecords: [Self.urlRecord], removing: [])
        opening.store.close()
        let again = BuildStore.open(at: folder.file("store.sqlite"))
        #expect(try await again.store.urlRecords() == [Self.urlRecord])
        again.store.close()
    }

    @Test func aThumbnailSetKeepsEveryField() async throws {
        #expect(Self.unset(in: Self.renditionSet) == ["image.motion"], "every field kept by the store given a value")
        let folder = try TemporaryDirectory("store")
        let opening = BuildStore.open(at: folder.file("store.sqlite"))
        try await opening.store.saveRenditionSets([("k", Self.renditionSet)])
        opening.store.close()
        let again = BuildStore.open(at: folder.file("store.sqlite"))
        #expect(try await again.store.renditionSet(key: "k") == Self.renditionSet)
        again.store.close()
    }

    @Test func aRenderedPageKeepsEveryField() async throws {
        let page = PageRecord(
            fingerprint: PageFingerprint(words: (.max, 1, 0x8000_0000_0000_0000, 42)),
            stamp: FileStamp(size: 5_678, modified: 1_763_800_000_123_456_789, inode: .max))
        let sources = PageFingerprint(words: (7, .max, 9, 0x8000_0000_0000_0001))
        #expect(Self.unset(in: page) == [], "every field of the record given a value")
        let folder = try TemporaryDirectory("store")
        let opening = BuildStore.open(at: folder.file("store.sqlite"))
        try await opening.store.saveRenderedPages(
            output: "/site/public", sources: sources, changed: [("photos/a.html", page)], removed: [],
            replacingAll: true)
        opening.store.close()
        let again = BuildStore.open(at: folder.file("store.sqlite"))
        let read = try #require(try await again.store.renderedPages())
        #expect(read.output == "/site/public" && read.sources == sources && read.pages == ["photos/a.html": page])
        again.store.close()
    }

    @Test func thePublishedListAndWhatABuildVouchesForKeepEveryField() async throws {
        let published = PublishedFiles(
            output: "/site/public", manifest: FileStamp(size: 912, modified: 1_763_800_000_000_000_007, inode: .max),
            files: ["index.html", "photos/a.html"])
        let vouched = UpToDateRecord(
            inputs: "ab12", freshUntil: 1_763_800_000.25, photos: 2, urls: 3, pages: 4,
            files: [
                FileStamp(size: 1, modified: 2, inode: 3), FileStamp(size: 4, modified: 5, inode: .max),
            ],
            local: [SourceInput(path: "/site/photos", stamp: SourceStamp(size: 1, modified: 2, changed: 3, inode: 4))])
        #expect(Self.unset(in: published) + Self.unset(in: vouched) == [], "every field given a value")
        let folder = try TemporaryDirectory("store")
        let opening = BuildStore.open(at: folder.file("store.sqlite"))
        try await opening.store.savePublishedFiles(published, replacing: nil)
        try await opening.store.saveUpToDate(vouched, for: published)
        opening.store.close()
        let again = BuildStore.open(at: folder.file("store.sqlite"))
        #expect(try await again.store.publishedFiles() == published)
        let read = try #require(try await again.store.upToDate())
        #expect(read.0 == published && read.1 == vouched)
        again.store.close()
    }
}
