import Foundation
import GalleryCore
import Testing

@testable import Feed

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder of more than 512 entries is looked at in parts on every core
/// (`FeedReader.concurrentEntries`), then taken in name order: what the walk gives must be
/// what one pass in name order gives, whichever part finishes first, with each photo's stamp,
/// sidecar and motion its own across the parts' seams.
@Suite struct LargeFolderWalkTests {
    @Test func aFolderOfManyPartsReadsAsOneInNameOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("photos")
        let outside = root.appendingPathComponent("outside")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String = "x") throws {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }

        var expected: [(name: String, caption: String?, motion: String?)] = []
        var skipped: [String] = []
        for number in 0..<1_400 {
            let stem = String(format: "IMG_%04d", number)
            switch number {
            case _ where number % 131 == 7:
                // A Live Photo: the clip is the still's, not a photo of its own.
                try write(stem + ".heic")
                try write(stem + ".mov")
                expected.append((stem + ".heic", nil, stem + ".mov"))
            case _ where number % 97 == 3:
                try write(stem + ".jpg")
                try write(
                    stem + ".xmp",
                    """
                    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
                    <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Caption \(number)</rdf:li></rdf:Alt></dc:description>
                    </rdf:Description></rdf:RDF></x:xmpmeta>
                    """)
                expected.append((stem + ".jpg", "Caption \(number)", nil))
            case 500:
                // A link out of the allowed folders, at a part's seam.
                try Data("x".utf8).write(to: outside.appendingPathComponent("secret.jpg"))
                try FileManager.default.createSymbolicLink(
                    at: folder.appendingPathComponent(stem + ".jpg"),
                    withDestinationURL: outside.appendingPathComponent("secret.jpg"))
                skipped.append(stem + ".jpg: a symbolic link")
            case 1_025:
                // A pipe named like a photo: reported, never opened.
                #expect(mkfifo(folder.appendingPathComponent(stem + ".jpg").path, 0o600) == 0)
                skipped.append(stem + ".jpg: not a plain file")
            case _ where number % 50 == 0:
                try write(stem + ".txt")
            default:
                try write(stem + ".jpg")
                expected.append((stem + ".jpg", nil, nil))
            }
        }

        let document = try FeedReader().document(fromFolder: folder, allowedRoots: [folder])

        #expect(document.photos.map(\.id) == expected.map(\.name))
        #expect(document.photos.map(\.index) == Array(0..<expected.count))
        #expect(document.photos.map(\.metadata.description) == expected.map(\.caption))
        #expect(document.photos.map { $0.motion?.lastPathComponent } == expected.map(\.motion))
        #expect(zip(document.skipped.map(\.message), skipped).allSatisfy { $0.hasPrefix($1) })
        #expect(document.skipped.count == skipped.count)
        // Each photo's stamp is its own file's, as the load looks its hash up by it.
        #expect(document.photoStamps.count == expected.count)
        let stamps = expected.map { SourceStamp(path: folder.appendingPathComponent($0.name).path) }
        #expect(document.photoStamps == stamps)
        // The folder first, then each entry it lists that is not a folder, in name order.
        let listed = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(document.inputs.map(\.path) == [folder.path] + listed.map { folder.path + "/" + $0 })
    }
}
