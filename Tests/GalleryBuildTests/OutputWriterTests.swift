import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import GalleryBuild

/// A write that fails part way (a full disk) leaves the previous site as it was (issue 10, case 3).
@Suite struct OutputWriterTests {
    struct DiskFull: Error {}

    /// A previous site (one page, one image, its manifest) and the files of the next build: a
    /// changed page naming a new image.
    func previousSiteAndNextFiles() throws -> (TemporaryDirectory, URL, [OutputFile], Manifest, Manifest) {
        let folder = try TemporaryDirectory("writer")
        let output = folder.file("public")
        let oldImage = folder.file("cache/old.webp")
        let newImage = folder.file("cache/new.webp")
        try folder.write("old image", to: "cache/old.webp")
        try folder.write("new image", to: "cache/new.webp")
        let writer = OutputWriter(directory: output)
        let first = [
            OutputFile(path: "index.html", content: .bytes(Array("<img src=images/old.webp>".utf8))),
            OutputFile(path: "images/old.webp", content: .copy(of: oldImage, size: 9)),
        ]
        let firstManifest = Manifest(photos: [], files: first.map(\.path).sorted())
        _ = try writer.write(first, manifest: firstManifest, previous: nil)
        let next = [
            OutputFile(path: "index.html", content: .bytes(Array("<img src=images/new.webp>".utf8))),
            OutputFile(path: "album-a.html", content: .bytes(Array("<img src=images/new.webp>".utf8))),
            OutputFile(path: "images/new.webp", content: .copy(of: newImage, size: 9)),
        ]
        return (folder, output, next, firstManifest, Manifest(photos: [], files: next.map(\.path).sorted()))
    }

    @Test(arguments: ["images/new.webp", "index.html", "album-a.html", Manifest.fileName])
    func aFailureBeforeThePagesAreSwitchedLeavesThePreviousSite(failingAt failing: String) throws {
        let (folder, output, next, firstManifest, nextManifest) = try previousSiteAndNextFiles()
        let before = folder.allFiles(under: "public").map {
            ($0, try? Data(contentsOf: output.appendingPathComponent($0)))
        }
        let writer = OutputWriter(directory: output) { path in
            if path == failing { throw DiskFull() }
        }

        #expect(throws: DiskFull.self) { try writer.write(next, manifest: nextManifest, previous: firstManifest.files) }

        let after = folder.allFiles(under: "public").map {
            ($0, try? Data(contentsOf: output.appendingPathComponent($0)))
        }
        #expect(after.map(\.0) == before.map(\.0), "no file added or removed, no temporary file left")
        #expect(after.map(\.1) == before.map(\.1), "no file changed")
    }

    @Test func pagesAreWrittenAfterTheImagesTheyNameAndTheManifestLast() throws {
        let (folder, output, next, firstManifest, nextManifest) = try previousSiteAndNextFiles()
        defer { withExtendedLifetime(folder) {} }
        let order = Locked<[String]>([])
        let writer = OutputWriter(directory: output) { path in order.update { $0?.append(path) } }

        _ = try writer.write(next, manifest: nextManifest, previous: firstManifest.files)

        #expect(order.value == ["images/new.webp", "index.html", "album-a.html", Manifest.fileName])
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("images/old.webp").path))
        #expect(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8).contains("new"))
    }

    @Test func aWriteAfterAKilledOneSweepsWhatItStaged() throws {
        let (folder, output, next, firstManifest, nextManifest) = try previousSiteAndNextFiles()
        let writer = OutputWriter(directory: output)
        // A build killed while staging: pages at temporary names, never finished nor abandoned.
        let killed = try OutputWriter.Staging(writer)
        try killed.stage([("index.html", Array("half a build".utf8)), ("photos/a.html", Array("a".utf8))])
        let temporary = folder.allFiles(under: "public").filter {
            AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
        }
        #expect(temporary.count == 3, "two pages and the marker: \(temporary)")

        _ = try writer.write(next, manifest: nextManifest, previous: firstManifest.files)

        let files = folder.allFiles(under: "public")
        #expect(files == ["album-a.html", "images/new.webp", "index.html", Manifest.fileName].sorted(), "\(files)")
    }
}
