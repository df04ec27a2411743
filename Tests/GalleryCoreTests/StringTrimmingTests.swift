import Foundation
import Testing

@testable import GalleryCore

@Suite struct StringTrimmingTests {
    @Test func trimsUnicodeWhiteSpaceAndLineBreaksAtBothEnds() {
        #expect(" \t a b \n".trimmingWhitespace() == "a b")
        #expect("\u{00A0}\u{3000}Café\u{2003}".trimmingWhitespace() == "Café")
        #expect("   ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("x"[...].trimmingWhitespace() == "x")
        #expect("\"max-age\" ".dropFirst().trimmingWhitespace() == "max-age\"")
    }
}
