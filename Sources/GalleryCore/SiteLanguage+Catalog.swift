package import Foundation

/// The theme's strings (docs/languages.md lists them with what each is for), and where each
/// language's words are: a file of the built-in theme each (`Theme/languages/<tag>.json`). A key
/// ending in `_count` has plural forms; `{name}` is a placeholder.
extension SiteLanguage {
    package static let keys: [String: Key] = Dictionary(
        uniqueKeysWithValues: [
            Key(name: "skip_to_photos"), Key(name: "all_photos"), Key(name: "albums"), Key(name: "keywords"),
            Key(name: "albums_in_album"), Key(name: "no_cover"), Key(name: "image_unavailable"),
            Key(name: "breadcrumb"), Key(name: "pages"), Key(name: "previous_page"), Key(name: "next_page"),
            Key(name: "photos"), Key(name: "source"), Key(name: "made_with"),
            Key(name: "page_number", placeholders: ["number"]),
            Key(name: "position", placeholders: ["number", "count"]),
            Key(name: "photo_count", placeholders: ["count"], isPlural: true),
            Key(name: "album_count", placeholders: ["count"], isPlural: true),
            Key(name: "keyword_count", placeholders: ["count"], isPlural: true),
            Key(name: "keyword_heading", placeholders: ["keyword"]),
            Key(name: "taken", placeholders: ["date"]), Key(name: "taken_at", placeholders: ["place"]),
            Key(name: "date", placeholders: ["day", "month", "month_number", "year"]),
            Key(name: "date_time", placeholders: ["date", "time"]),
            Key(name: "download"), Key(name: "download_original"), Key(name: "download_album"),
            Key(name: "kilobytes", placeholders: ["size"]), Key(name: "megabytes", placeholders: ["size"]),
            Key(name: "gigabytes", placeholders: ["size"]), Key(name: "separator"),
            Key(name: "photo_number", placeholders: ["number"]), Key(name: "undated"), Key(name: "licence"),
            Key(name: "viewer"), Key(name: "previous_photo"), Key(name: "next_photo"), Key(name: "caption"),
            Key(name: "zoom"), Key(name: "slideshow"), Key(name: "full_screen"), Key(name: "close"),
            Key(name: "video"), Key(name: "play_video"), Key(name: "live_photo"),
            Key(name: "content_warning"), Key(name: "sensitive_content"), Key(name: "show_photo"),
            Key(name: "hide_photo"),
        ].map { ($0.name, $0) })

    /// The keys the viewer's script reads, from the JSON each grid page carries.
    package static let viewerKeys = [
        "viewer", "previous_photo", "next_photo", "caption", "zoom", "slideshow", "full_screen", "close", "position",
        "live_photo",
    ]

    /// The built-in theme's languages, by tag (`Theme/languages/<tag>.json`: `de`, `pt-PT`), read
    /// once. docs/languages.md says what a file holds; adding a language is adding a file.
    static let catalogs: [String: Catalog] =
        BuiltInTheme.folder.map { loadCatalogs(from: $0.appendingPathComponent("languages")) } ?? [:]

    /// The names `strings:` takes: every key, and `months`.
    package static var stringKeys: [String] { keys.keys.sorted() + ["months"] }

    /// The languages with built-in strings, by tag; a region's own words (`pt-PT`) are the
    /// language's.
    package static var builtInLanguages: [String] { catalogs.keys.filter { !$0.contains("-") }.sorted() }

    /// The file of `tag`'s language in a theme's `languages/` folder (`folder`), read and checked;
    /// nil when the theme has none (the built-in one is used). A file that cannot be read, or
    /// that names a string the theme does not have or a placeholder a string does not take, is a
    /// problem that names it.
    package static func themeCatalog(for tag: String, in folder: URL) throws(ThemeLanguageProblem) -> Catalog? {
        guard let key = catalogKey(for: tag) else { return nil }
        let file = folder.appendingPathComponent("\(key).json")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ThemeLanguageProblem(file: file, message: "cannot be read")
        }
        let catalog: Catalog
        do {
            catalog = try Catalog(json: data)
        } catch is Catalog.Unreadable {
            throw ThemeLanguageProblem(
                file: file,
                message: "needs twelve `months` and a `plural` rule of "
                    + PluralRule.allCases.map(\.rawValue).joined(separator: ", "))
        } catch {
            throw ThemeLanguageProblem(file: file, message: "is not a language's file (\(error))")
        }
        for (name, text) in catalog.texts.sorted(by: { $0.key < $1.key }) {
            let base = String(name.prefix { $0 != "." })
            guard let key = keys[base], name == base || key.isPlural else {
                throw ThemeLanguageProblem(
                    file: file, message: "`\(name)` is no string of the theme (docs/languages.md lists them)")
            }
            for placeholder in placeholders(in: text) where !key.placeholders.contains(placeholder) {
                throw ThemeLanguageProblem(file: file, message: "`\(name)` does not take {\(placeholder)}")
            }
        }
        return catalog
    }

    /// Every `<tag>.json` in `folder`, by tag; one that cannot be read is left out
    /// (LanguageTests reads every file of the built-in theme and says which).
    static func loadCatalogs(from folder: URL) -> [String: Catalog] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var catalogs: [String: Catalog] = [:]
        for file in files where file.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path),
                let catalog = try? Catalog(json: data)
            else { continue }
            catalogs[String(file.dropLast(5))] = catalog
        }
        return catalogs
    }
}

extension SiteLanguage.Catalog {
    /// A language's file: its strings (a plural string by form, `photo_count.one`), the twelve
    /// months, how it writes numbers, its plural rule and how it writes the first of a month.
    private struct File: Decodable {
        struct Numbers: Decodable {
            var decimal: String
            var group: String
            var minimumGrouping: Int?
            var digits: String?

            enum CodingKeys: String, CodingKey {
                case decimal, group, digits
                case minimumGrouping = "minimum_grouping"
            }
        }

        var strings: [String: String]
        var months: [String]
        var numbers: Numbers?
        var plural: String?
        var firstDay: String?

        enum CodingKeys: String, CodingKey {
            case strings, months, numbers, plural
            case firstDay = "first_day"
        }
    }

    struct Unreadable: Error {}

    init(json data: Data) throws {
        let file = try JSONDecoder().decode(File.self, from: data)
        guard file.months.count == 12 else { throw Unreadable() }
        var numbers = SiteLanguage.NumberStyle()
        if let given = file.numbers {
            numbers = SiteLanguage.NumberStyle(
                decimal: given.decimal, group: given.group, minimumGrouping: given.minimumGrouping ?? 1,
                digits: given.digits)
        }
        guard let plural = SiteLanguage.PluralRule(rawValue: file.plural ?? "english") else { throw Unreadable() }
        self.init(texts: file.strings, months: file.months, numbers: numbers, plural: plural, firstDay: file.firstDay)
    }
}

/// A language's file in a site's theme that cannot be used, and why.
package struct ThemeLanguageProblem: Error, Sendable {
    package var file: URL
    package var message: String
}
