import Crypto
import Foundation
import GalleryCore
import Mustache

/// The theme's strings in the site's language, as templates read them: `{{t.all_photos}}`.
struct ThemeStrings: Sendable, MustacheParent {
    let language: SiteLanguage

    /// The keys a template can say as they are: not a plural one (its number comes filled in, as
    /// `photoCount`), not `months`.
    static let plain = Set(SiteLanguage.keys.values.filter { !$0.isPlural }.map(\.name))

    func child(named name: String) -> Any? {
        Self.plain.contains(name) ? language.text(name).escapableInTemplates : nil
    }
}

extension SiteLanguage {
    /// The text of `key` before and after its placeholder `name`, escapable: where a template
    /// puts an element (`Taken <time>…</time>`).
    func around(_ key: String, _ name: String) -> (before: String, after: String) {
        let marker = "\u{0}"
        let parts = text(key, [name: marker]).components(separatedBy: marker)
        return (parts[0].escapableInTemplates, parts.dropFirst().joined().escapableInTemplates)
    }
}

extension PageViewModel.Site {
    /// The site's values for its language: made once a build, shared by every page.
    init(title: String, language: SiteLanguage) {
        self.title = title
        self.language = language
        self.languageDigest = SHA256.hash(data: Array(String(reflecting: language).utf8))
            .prefix(8).map { String($0, radix: 16) }.joined()
        self.viewerText = Self.viewerText(of: language)
    }

    /// What the viewer's script says and how it writes numbers, as JSON for a
    /// `<script type="application/json">`: `<` escaped, so that nothing in a string the site gives
    /// can end the element.
    static func viewerText(of language: SiteLanguage) -> String {
        var fields = SiteLanguage.viewerKeys.map { ($0, language.text($0)) }
        let style = language.numberStyle
        fields.append(("group", style.group))
        if let digits = style.digits { fields.append(("digits", digits)) }
        if style.minimumGrouping > 1 { fields.append(("grouping", String(style.minimumGrouping))) }
        let literal = FeedViewModel.JSONLiterals.literal
        return "{" + fields.map { "\(literal($0.0)):\(literal($0.1))" }.joined(separator: ",") + "}"
    }
}
