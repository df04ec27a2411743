import Foundation
public import Testing

/// Checks that every non-void element of a page is closed, in order: a cheap stand-in for an
/// HTML parser in tests.
public enum HTMLCheck {
    static let voidElements: Set<String> = ["meta", "link", "img", "source", "br", "hr", "input", "base"]

    public static func assertWellFormed(_ html: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        #expect(html.hasPrefix("<!doctype html>"), sourceLocation: sourceLocation)
        let regex = try NSRegularExpression(pattern: "<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
        var stack: [String] = []
        for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            guard let closing = Range(match.range(at: 1), in: html), let name = Range(match.range(at: 2), in: html)
            else { continue }
            let element = html[name].lowercased()
            if voidElements.contains(element) { continue }
            if html[closing].isEmpty {
                stack.append(element)
            } else {
                #expect(
                    stack.last == element, "</\(element)> closes <\(stack.last ?? "nothing")>",
                    sourceLocation: sourceLocation)
                stack.removeLast()
            }
        }
        #expect(stack.isEmpty, "unclosed: \(stack)", sourceLocation: sourceLocation)
    }
}
