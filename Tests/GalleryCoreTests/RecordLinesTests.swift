import Testing

@testable import GalleryCore

@Suite struct RecordLinesTests {
    /// Elements made in parts of 4,096, each part's on every core: every element once, in order,
    /// a line each, whatever the count and the smallest piece.
    @Test(arguments: [(0, 1), (1, 1), (5, 1), (4095, 2048), (4096, 2048), (4097, 256), (10_001, 256)])
    func elementsComeOnceInOrder(count: Int, minimumPart: Int) async throws {
        var bytes: [UInt8] = []
        var parts = 0
        let sink: ([UInt8]) -> Void = { part in
            bytes += part
            parts += 1
        }
        try await RecordLines.encodeElements(count: count, minimumPart: minimumPart, into: sink) { offset, bytes in
            bytes += Array(String(offset).utf8)
        }
        let expected = (0..<count).map { "\n\($0)" }.joined(separator: ",")
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(parts >= (count + 4095) / 4096)
    }
}
