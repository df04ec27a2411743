import Testing

@testable import Markdown

@Suite struct MarkdownRendererTests {
    @Test func rendersGitHubTablesAndStrikethrough() {
        let html = MarkdownRenderer().html(from: "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n~~old~~ new")
        #expect(html.contains("<table>"))
        #expect(html.contains("<th>a</th>"))
        #expect(html.contains("<td>2</td>"))
        #expect(html.contains("<del>old</del>"))
    }

    @Test func textsRenderedAtOnceOnManyThreadsEachKeepTheirStrikethrough() async {
        let lost = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<150).filter { _ in !MarkdownRenderer().html(from: "~~old~~ new").contains("<del>old</del>") }
                        .count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(lost == 0)
    }

    @Test func escapesRawHTMLByDefault() {
        let html = MarkdownRenderer().html(
            from: "Hi <script>alert(1)</script> there\n\n<div onclick=\"x()\">block</div>\n")
        #expect(!html.contains("<script"))
        #expect(!html.contains("<div"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;"))
    }

    @Test func letsRawHTMLThroughWhenTheSiteOptsIn() {
        let html = MarkdownRenderer(allowsRawHTML: true).html(from: "<div class=\"note\">hello</div>\n")
        #expect(html.contains("<div class=\"note\">hello</div>"))
    }

    @Test func dropsDangerousLinks() {
        let html = MarkdownRenderer().html(from: "[click](javascript:alert(1)) and [ok](https://example.com)")
        #expect(!html.contains("javascript:"))
        #expect(html.contains("href=\"https://example.com\""))
    }

    @Test func autolinksBareURLs() {
        #expect(
            MarkdownRenderer().html(from: "see https://example.com now").contains("<a href=\"https://example.com\">"))
    }
}
