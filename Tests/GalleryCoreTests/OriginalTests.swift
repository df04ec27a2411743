import Foundation
import Testing

@testable import GalleryCore

/// An original holds its file's path in two shared parts (folder and name); it must read back
/// as the path it was given, whichever way it was made.
@Suite struct OriginalTests {
    static let source = CanonicalURL(string: "https://example.com/a.jpg")!
    static let sha = String(repeating: "0a", count: 32)

    func original(_ file: URL) -> Original {
        Original(source: Self.source, file: file, sha256: Self.sha, byteCount: 3, origin: .downloaded)
    }

    @Test(arguments: ["/cache/v1/blobs/x.jpg", "/x.jpg", "/a b/%41/é.jpg"])
    func aFileReadsBackAsGiven(path: String) {
        let file = URL(fileURLWithPath: path, isDirectory: false)
        let made = original(file)
        #expect(made.filePath == file.path)
        #expect(made.file == file)
        var moved = made
        for path in ["relative.jpg", "/x", "a/b", "a/", "/", "a//b", "/é/ü.jpg"] {
            moved.filePath = path
            #expect(moved.filePath == path)
        }
        #expect(made.filePath == file.path)
    }

    @Test func aBlobIsItsFolderAndItsHashAndEqualToTheSameFileGivenWhole() {
        let blob = Original(
            source: Self.source, inBlobs: "/cache/v1/blobs", sha256: Self.sha, byteCount: 3, origin: .downloaded)
        #expect(blob.filePath == "/cache/v1/blobs/" + Self.sha)
        let whole = original(URL(fileURLWithPath: "/cache/v1/blobs/" + Self.sha))
        #expect(blob == whole)
        #expect(Set([blob, whole]).count == 1)
    }
}
