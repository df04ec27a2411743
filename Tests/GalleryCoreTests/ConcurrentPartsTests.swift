import Testing

@testable import GalleryCore

@Suite struct ConcurrentPartsTests {
    /// The parts cover the whole range once, in order, none empty; a range shorter than two
    /// parts is one.
    @Test(arguments: [(0, 1), (1, 1), (5, 1), (4095, 2048), (4096, 2048), (100_001, 256)])
    func partsCoverTheRangeInOrder(count: Int, minimumPart: Int) {
        let parts = concurrentParts(of: count, minimumPart: minimumPart) { $0 }
        #expect(parts.flatMap { Array($0) } == Array(0..<count))
        #expect(parts.count == 1 || parts.allSatisfy { !$0.isEmpty }, "\(parts)")
        #expect(count >= 2 * minimumPart || parts.count == 1, "\(parts)")
    }
}
