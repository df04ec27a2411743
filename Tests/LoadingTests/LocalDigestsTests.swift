import BuildStore
import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Loading

/// The hashes of the site's own files: a file that keeps its stamp is not read again; one whose
/// stamp moved is; a stamp too fresh to trust is not kept; and they outlive the build in the store.
@Suite struct LocalDigestsTests {
    func store(in folder: TemporaryDirectory) -> BuildStore {
        BuildStore.open(at: folder.file("store.sqlite"), schema: StoreSchema([LocalFileTable.self])).store
    }

    func loader(_ digests: LocalDigests, clock: WallClock, rereads: Bool = false) -> ImageLoader {
        ImageLoader(
            configuration: ImageLoader.Configuration(digests: digests, rereadsLocalFiles: rereads, clock: clock))
    }

    @Test func aFileThatKeepsItsStampIsNotReadAgain() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("the photo's bytes", to: "photo.jpg")
        let source = try #require(CanonicalURL(file))
        let clock = WallClock.stopped(at: Date().addingTimeInterval(10))
        let store = store(in: folder)
        let digests = LocalDigests(store: store)
        await digests.read()
        let read = try await loader(digests, clock: clock).original(for: source)
        #expect(read.sha256 == sha256Hex(of: "the photo's bytes"))
        try await digests.persist(pruning: true)

        // The next build, from the store: a hash stands for the file while its stamp holds. A
        // hash planted for the stamp shows that the file was not read.
        let next = LocalDigests(store: store)
        await next.read()
        let stamp = try #require(SourceStamp(path: file.path))
        #expect(next.sha256(of: file.path, stamp: stamp) == read.sha256)
        next.note("planted", of: file.path, stamp: stamp, at: clock.now)
        #expect(loader(next, clock: clock).availableOriginal(for: source)?.sha256 == "planted")
        #expect(try await loader(next, clock: clock).original(for: source).sha256 == "planted")
        // --full reads it.
        #expect(try await loader(next, clock: clock, rereads: true).original(for: source).sha256 == read.sha256)

        // Written again: another stamp, read again.
        try folder.write("other bytes, other size", to: "photo.jpg")
        clock.advance(by: 10)
        #expect(loader(next, clock: clock).availableOriginal(for: source) == nil)
        #expect(
            try await loader(next, clock: clock).original(for: source).sha256
                == sha256Hex(of: "other bytes, other size"))
        store.close()
    }

    @Test func aStampTakenTooSoonAfterAWriteIsNotKept() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("just written", to: "photo.jpg")
        let source = try #require(CanonicalURL(file))
        let store = store(in: folder)
        let digests = LocalDigests(store: store)
        await digests.read()
        // Read half a second after its last change, by the build's clock.
        let stamp = try #require(SourceStamp(path: file.path))
        let now = Date(timeIntervalSince1970: Double(stamp.changed) / 1e9 + 0.5)
        _ = try await loader(digests, clock: .stopped(at: now)).original(for: source)
        #expect(digests.sha256(of: file.path, stamp: stamp) == nil)
        #expect(digests.inputs?.map(\.path) == [file.path], "still an input of the build")
        store.close()
    }

    @Test func aFileSeenWithTwoStampsVouchesForNothing() async throws {
        let folder = try TemporaryDirectory()
        let store = store(in: folder)
        let digests = LocalDigests(store: store)
        await digests.read()
        let first = SourceStamp(size: 1, modified: 1, changed: 1, inode: 1)
        _ = digests.sha256(of: "/a.jpg", stamp: first)
        #expect(digests.inputs?.count == 1)
        _ = digests.sha256(of: "/a.jpg", stamp: SourceStamp(size: 2, modified: 1, changed: 1, inode: 1))
        #expect(digests.inputs == nil)
        store.close()
    }

    @Test func pruningForgetsTheFilesABuildNoLongerRead() async throws {
        let folder = try TemporaryDirectory()
        let store = store(in: folder)
        let now = Date().addingTimeInterval(10)
        let stamp = SourceStamp(size: 1, modified: 1, changed: 1, inode: 1)
        let digests = LocalDigests(store: store)
        await digests.read()
        digests.note("a", of: "/a.jpg", stamp: stamp, at: now)
        digests.note("b", of: "/b.jpg", stamp: stamp, at: now)
        try await digests.persist(pruning: true)
        await digests.read()
        #expect(digests.sha256(of: "/a.jpg", stamp: stamp) == "a")
        try await digests.persist(pruning: false)
        await digests.read()
        #expect(digests.sha256(of: "/b.jpg", stamp: stamp) == "b", "kept by a build that did not prune")
        try await digests.persist(pruning: true)
        await digests.read()
        #expect(digests.sha256(of: "/a.jpg", stamp: stamp) == nil, "not read by the last build, which pruned")
        #expect(digests.sha256(of: "/b.jpg", stamp: stamp) == "b")
        store.close()
    }
}
