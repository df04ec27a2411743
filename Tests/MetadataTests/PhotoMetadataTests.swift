import Foundation
import GalleryCore
import Testing

@Suite struct PhotoMetadataTests {
    /// A moment moved into another zone: across a day, a month and a year, both ways.
    @Test(arguments: [
        ("2024-05-01T10:20:30", "Z", "+02:00", "2024-05-01T12:20:30"),
        ("2023-12-31T23:30:00", "Z", "+05:30", "2024-01-01T05:00:00"),
        ("2024-03-01T01:00:00", "Z", "-08:00", "2024-02-29T17:00:00"),
        ("2024-05-01T12:00:00", "+02:00", "Z", "2024-05-01T10:00:00"),
    ])
    func aMomentInAnotherZone(local: String, offset: String, zone: String, moved: String) throws {
        let time = try #require(CaptureTime(local: local, offset: offset))
        let other = try #require(time.inZone(zone))
        #expect(other.local == moved && other.offset == zone && other.instant == time.instant)
        #expect(CaptureTime(local: local)?.inZone(zone) == nil, "a local time cannot be moved")
    }

    /// Alt text (or a caption's first line standing for it) past its bound is cut after a whole
    /// word, with an ellipsis; a word longer than half the bound is cut inside; cutting again
    /// changes nothing.
    @Test func longTextIsCutAtAWordWithAnEllipsis() {
        let words = String(repeating: "harbour, ", count: 60)
        let cut = PhotoMetadata(alt: words).bounded().alt ?? ""
        #expect(cut.count <= PhotoMetadata.lineLimit && cut.hasSuffix("harbour…"), "\(cut.suffix(20))")
        #expect(PhotoMetadata(alt: cut).bounded().alt == cut)
        let long = String(repeating: "x", count: 400)
        let inside = PhotoMetadata(alt: long).bounded().alt ?? ""
        #expect(inside.count == PhotoMetadata.lineLimit && inside.hasSuffix("x…"))
        #expect(PhotoMetadata.shortened("short", to: 10) == "short")
        // Lines isolated one by one stay so when the text is cut.
        let lines = "Intro \u{202E}x\n\u{202E}" + String(repeating: "word ", count: 1_100)
        let description = PhotoMetadata(description: lines).bounded().description ?? ""
        #expect(description.count <= PhotoMetadata.textLimit)
        #expect(
            PhotoMetadata(description: description).bounded().description == description,
            "cutting again changes nothing")
    }

    @Test(
        arguments: [
            ("2024:05:01 14:32:10", nil, "2024-05-01T14:32:10", nil),
            ("2024:05:01 14:32:10", "+02:00", "2024-05-01T14:32:10", "+02:00"),
            ("2024-05-01T14:32:10.5-05:30", nil, "2024-05-01T14:32:10", "-05:30"),
            ("2024-05-01T14:32Z", nil, "2024-05-01T14:32:00", "Z"),
            ("2024-05-01", nil, "2024-05-01", nil),
            ("2024-05-01", "+02:00", "2024-05-01", nil),
            ("2024-05-01 14:32", nil, "2024-05-01T14:32:00", nil),
        ] as [(String, String?, String, String?)])
    func readsTheDateForms(text: String, offset: String?, local: String, zone: String?) {
        let time = CaptureTime.parse(text, offset: offset)
        #expect(time?.local == local)
        #expect(time?.offset == zone)
    }

    @Test(arguments: ["0000:00:00 00:00:00", "2024:13:01 10:00:00", "2023-02-29", "yesterday", "2024-05-01X10:00", ""])
    func refusesWhatIsNoDate(text: String) {
        #expect(CaptureTime.parse(text) == nil)
    }

    @Test func ordersByTheInstantWhenTheOffsetIsKnown() throws {
        // 10:00 in Oslo (+02:00) is 08:00 UTC; 09:00 in London (+01:00) is 08:00 UTC too, later
        // than 07:30 UTC.
        let oslo = try #require(CaptureTime.parse("2024-05-01T10:00:00+02:00"))
        let london = try #require(CaptureTime.parse("2024-05-01T08:30:00+01:00"))
        #expect(london < oslo)
        #expect(oslo.instant - london.instant == 30 * 60)
        // A bad offset is dropped, not trusted.
        #expect(CaptureTime.parse("2024-05-01T10:00:00", offset: "+25:00")?.offset == nil)
        #expect(CaptureTime.parse("2024-05-01T10:00:00", offset: "+-1:00")?.offset == nil)
        #expect(CaptureTime.parse("2024-05-01T10:00:00", offset: "+1:000")?.offset == nil)
    }

    @Test func boundsHostileText() {
        let long = String(repeating: "a", count: 10_000)
        let said = PhotoMetadata(
            title: "  Fjord\u{0}\u{7}at\u{202E}dawn \n", description: "First line\r\nsecond\u{1B}[31m\n\n\nthird",
            alt: "\u{200B}", keywords: ["a", "A", " ", long, "b"], rating: 9, creator: long,
            licence: "javascript:alert(1)"
        ).bounded()
        // The override is closed, and the title isolated: it cannot reorder the page around it.
        #expect(said.title == "\u{2068}Fjordat\u{202E}dawn\u{202C}\u{2069}")
        #expect(said.description == "First line\nsecond[31m\n\n\nthird")
        #expect(said.alt == nil)
        #expect(said.keywords == ["a", "b"])
        #expect(said.rating == nil)
        #expect(said.creator?.count == PhotoMetadata.lineLimit && said.creator?.hasSuffix("…") == true)
        #expect(said.bounded() == said, "bounding again changes nothing")
        #expect(said.licence == nil)
        let text = PhotoMetadata(description: long + long).bounded()
        #expect(text.description?.count == PhotoMetadata.textLimit && text.bounded() == text)
    }

    @Test func theFirstSourceWinsFieldByField() {
        let sidecar = PhotoMetadata(title: "Sidecar", keywords: [])
        let embedded = PhotoMetadata(title: "Embedded", description: "Embedded text", keywords: ["k"], rating: 3)
        let merged = sidecar.filled(from: embedded)
        #expect(merged == PhotoMetadata(title: "Sidecar", description: "Embedded text", keywords: ["k"], rating: 3))
    }

    @Test func roundTripsThroughJSON() throws {
        let said = PhotoMetadata(
            title: "T", description: "D\nE", alt: "A", keywords: ["x", "y"],
            taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"), rating: 5, creator: "C", rights: "R",
            licence: "https://example.com/l")
        let data = try JSONEncoder().encode(said)
        #expect(try JSONDecoder().decode(PhotoMetadata.self, from: data) == said)
        #expect(String(decoding: try JSONEncoder().encode(PhotoMetadata()), as: UTF8.self) == "{}")
        // A record is untrusted: a bad date fails it, a bad rating is dropped.
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(PhotoMetadata.self, from: Data(#"{"taken":{"local":"soon"}}"#.utf8))
        }
        #expect(try JSONDecoder().decode(PhotoMetadata.self, from: Data(#"{"rating":-1}"#.utf8)).rating == nil)
    }
}
