import Foundation
import Testing

@testable import GalleryJSON

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(Array(#"{"a": [1, -2.5e3, true, false, null, "\u00e9\ud83d\ude00\n"]}"#.utf8))
        #expect(
            value
                == .object([
                    "a": .array([
                        .number(1, text: "1"), .number(-2500, text: "-2.5e3"), .bool(true), .bool(false), .null,
                        .string("é😀\n"),
                    ])
                ])
        )
    }

    @Test(arguments: [
        ("", 1, 1), ("[1,]", 1, 4), ("{\"a\" 1}", 1, 6), ("[\"abc", 1, 2), ("[1]\n x", 2, 2), ("[01]", 1, 3),
        ("\"é\" x", 1, 5),
    ])
    func reportsWhereItFailed(text: String, line: Int, column: Int) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
        do {
            _ = try JSONParser.parse(Array(text.utf8))
        } catch {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(deep.utf8)) }
    }
}
