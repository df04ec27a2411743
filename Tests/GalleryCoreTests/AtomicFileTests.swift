import Foundation
import Testing

@testable import GalleryCore

@Suite struct AtomicFileTests {
    /// A file written a part at a time is the parts in order; a write that fails part-way (a full
    /// disk, an encoding error) leaves the file in place as it was and no temporary file beside it.
    @Test func aStreamedWriteReplacesTheFileWholeOrNotAtAll() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallerygen-atomic-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("sub/index.json")
        let parts = (0..<5).map { Array(repeating: UInt8(ascii: "a") + UInt8($0), count: 100_000 * $0 + 1) }
        try AtomicFile.write(to: target) { sink in
            for part in parts { try sink(part) }
        }
        #expect(try Data(contentsOf: target) == Data(parts.joined()))

        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try AtomicFile.write(to: target) { sink in
                try sink(Array("partial".utf8))
                throw Broken()
            }
        }
        #expect(try Data(contentsOf: target) == Data(parts.joined()))
        let names = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(names == ["index.json"])
    }
}
