import Foundation
import TestSupport
import Testing

@testable import GalleryConcurrency

@Suite struct ConcurrentMapTests {
    @Test(arguments: [0, 1, 2, 7, 1000])
    func keepsOrderAndEveryElement(count: Int) async {
        let numbers = Array(0..<count)
        for ways in [1, 2, 3, 16] {
            #expect(await numbers.concurrentMap(ways: ways) { $0 * 2 } == numbers.map { $0 * 2 })
        }
    }
}
