import AsyncHTTPClient
import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Loading

@Suite struct HTTPDateTests {
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func readsAllThreeForms(text: String) {
        #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == 784_111_777)
    }

    @Test func theHandParserAgreesWithTheFormatter() {
        for seconds in stride(from: -2_000_000_000.0, to: 4_000_000_000, by: 7_777_777.7) {
            let date = Date(timeIntervalSince1970: seconds.rounded(.down))
            #expect(HTTPDate.parseIMFFixdate(HTTPDate.format(date)) == date, "\(HTTPDate.format(date))")
        }
        #expect(HTTPDate.parse("Sun, 06 Xyz 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("0") == nil)
    }
}
