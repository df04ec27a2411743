import CCmarkGFM
import Foundation
import Synchronization

/// Markdown (GitHub-flavoured: tables, strikethrough, autolinks, task lists) to HTML.
///
/// Safe by default: raw HTML in the text is shown as text (escaped) and `javascript:`-style links
/// are dropped, so Markdown cannot inject script. A site that trusts its Markdown can opt in to raw HTML.
package struct MarkdownRenderer: Sendable {
    private static let extensionNames = ["table", "strikethrough", "autolink", "tasklist", "tagfilter"]
    private static let registered: Void = cmark_gfm_core_extensions_ensure_registered()

    package var allowsRawHTML: Bool

    /// The largest Markdown a site may give (an intro or a caption file): cmark-gfm as Debian 12
    /// ships it takes time quadratic in the input for some texts (`![[]()` or `<http://a`
    /// repeated: minutes for 1 MB), so the input is bounded to a size whose worst case stays
    /// well under a second (BENCHMARKS.md).
    package static let maxInputBytes: Int64 = 32 << 10

    package init(allowsRawHTML: Bool = false) {
        self.allowsRawHTML = allowsRawHTML
    }

    /// cmark-gfm keeps the inline parser's special characters in one table for the whole process
    /// (`SPECIAL_CHARS`): a parser adds its extensions' (`~` for strikethrough) while it reads
    /// inlines and removes them after, under every other parser (github/cmark-gfm#221 and its
    /// links). One rendering at a time, then: a test run caught a text losing its strikethrough
    /// while another was rendered.
    private static let exclusive = Mutex(())

    /// Renders `text` to an HTML fragment.
    package func html(from text: String) -> String {
        Self.exclusive.withLock { _ in render(text) }
    }

    private func render(_ text: String) -> String {
        _ = Self.registered
        var options = CMARK_OPT_DEFAULT | CMARK_OPT_GITHUB_PRE_LANG | CMARK_OPT_FOOTNOTES | CMARK_OPT_SMART
        if allowsRawHTML { options |= CMARK_OPT_UNSAFE }
        guard let parser = cmark_parser_new(options) else { return "" }
        defer { cmark_parser_free(parser) }
        for name in Self.extensionNames {
            if let syntaxExtension = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, syntaxExtension)
            }
        }
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                cmark_parser_feed(parser, characters.baseAddress, characters.count)
            }
        }
        guard let document = cmark_parser_finish(parser) else { return "" }
        defer { cmark_node_free(document) }
        if !allowsRawHTML { Self.escapeRawHTML(in: document) }
        guard let rendered = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else {
            return ""
        }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// Replaces every raw HTML node by a text node of the same characters, which the renderer escapes.
    private static func escapeRawHTML(in document: OpaquePointer) {
        var htmlNodes: [OpaquePointer] = []
        guard let iterator = cmark_iter_new(document) else { return }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_HTML_INLINE || type == CMARK_NODE_HTML_BLOCK { htmlNodes.append(node) }
        }
        cmark_iter_free(iterator)
        for node in htmlNodes {
            let literal = cmark_node_get_literal(node)
            let text = cmark_node_new(CMARK_NODE_TEXT)
            cmark_node_set_literal(text, literal)
            if cmark_node_get_type(node) == CMARK_NODE_HTML_BLOCK {
                let paragraph = cmark_node_new(CMARK_NODE_PARAGRAPH)
                cmark_node_append_child(paragraph, text)
                cmark_node_insert_before(node, paragraph)
            } else {
                cmark_node_insert_before(node, text)
            }
            cmark_node_free(node)
        }
    }
}
