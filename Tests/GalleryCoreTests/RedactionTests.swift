import Foundation
import GalleryCore
import Testing

@Suite struct RedactionTests {
    static let secret = "s3cr3t-T0ken+/="

    /// Every form an answer could repeat the secret in: as written, percent-encoded in upper- and
    /// lower-case hex, with `/` escaped as JSON writes it, and a Basic token given beside it.
    @Test(arguments: [
        "s3cr3t-T0ken+/=", "s3cr3t-T0ken%2B%2F%3D", "s3cr3t-T0ken%2b%2f%3d", "s3cr3t-T0ken+\\/=",
        "Z2FsbGVyeTpzM2NyM3QtVDBrZW4rLz0=",
    ])
    func everyFormIsTakenOut(form: String) {
        let redaction = Redaction(
            secrets: [Self.secret], extraForms: [Data("gallery:\(Self.secret)".utf8).base64EncodedString()])
        let text = "before \(form) after \(form)"
        #expect(redaction.holds(text))
        #expect(redaction.apply(text) == "before [redacted] after [redacted]")
    }

    @Test func aShortSecretIsNotSearchedForButCounted() {
        let redaction = Redaction(secrets: ["abc", ""])
        #expect(redaction.isEmpty && redaction.tooShort == 1)
        #expect(redaction.apply("abcdef") == "abcdef")
    }

    @Test func aTerminalGetsNoControlCharacter() {
        let text = "\u{1B}]0;title\u{07}red \u{1B}[31mtext\u{9B}2J\r\nnext\tline"
        #expect(text.terminalSafe == "\u{FFFD}]0;title\u{FFFD}red \u{FFFD}[31mtext\u{FFFD}2J\u{FFFD}\nnext\tline")
        #expect("plain line".terminalSafe == "plain line")
    }
}
