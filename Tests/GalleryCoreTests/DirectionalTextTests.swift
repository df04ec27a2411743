import GalleryCore
import Testing

/// Feed text with directional formatting characters (a right-to-left override that would turn
/// `photo.jpg` into `gpj.otohp` and the page after it) is isolated as it comes in.
@Suite struct DirectionalTextTests {
    @Test func anOverrideIsClosedAndIsolated() {
        #expect("Holiday \u{202E}gpj.exe".cleanedLine() == "\u{2068}Holiday \u{202E}gpj.exe\u{202C}\u{2069}")
        #expect("\u{2067}مرحبا".cleanedLine() == "\u{2068}\u{2067}مرحبا\u{2069}\u{2069}")
    }

    @Test func closersWithoutAnOpenerAreDropped() {
        #expect("a\u{2069}b\u{202C}c".cleanedLine() == "\u{2068}abc\u{2069}")
        // An isolate's closer closes what is open inside it first.
        #expect("\u{2066}a\u{202B}b\u{2069}c".cleanedLine() == "\u{2068}\u{2066}a\u{202B}b\u{202C}\u{2069}c\u{2069}")
    }

    @Test func isolatingAgainChangesNothing() {
        for text in ["x\u{202E}y", "\u{2068}a\u{2069}b\u{202E}", "\u{2068}a\u{202E}"] {
            let once = text.cleanedLine()
            #expect(once.cleanedLine() == once, "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test func textWithoutThemIsAsItWas() {
        for text in ["مرحبا بالعالم", "Tromsø", "東京タワー", "plain"] { #expect(text.cleanedLine() == text) }
    }

    /// Cut at its bound, what the cut left open is closed again, within the bound, and cutting
    /// again changes nothing.
    @Test func aCutLineStaysBalanced() {
        let long = "\u{202E}" + String(repeating: "word ", count: 100)
        let cut = PhotoMetadata(title: long).bounded().title ?? ""
        #expect(cut.count <= PhotoMetadata.lineLimit)
        #expect(cut.hasSuffix("…\u{202C}\u{2069}"), "\(cut.unicodeScalars.suffix(3).map(\.value))")
        #expect(PhotoMetadata(title: cut).bounded().title == cut)
    }
}
