/// The language a site speaks (`language:` in gallery.yml): its tag for `<html lang>`, its writing
/// direction, the theme's strings and how numbers and dates are written.
///
/// Strings come from a built-in catalog (SiteLanguage+Catalog.swift, one per language), chosen by
/// the tag's language subtag, and then from the site's `strings:`, which may replace any of them.
/// A language without a catalog keeps its tag and direction and takes English strings for those
/// the site does not give (``untranslated`` lists them, for a warning). Numbers and dates are
/// written from tables here, not by the system's locale data, so that every machine writes the
/// same pages.
package struct SiteLanguage: Sendable, Equatable, Encodable, CustomDebugStringConvertible {
    /// As gallery.yml gives it (`pt-BR`), `en` by default.
    package let tag: String
    /// The catalog the strings come from (`pt`), nil when there is none for the tag.
    package let catalog: String?
    package let isRightToLeft: Bool
    /// By key; a plural string's forms under `key.category` (`photo_count.one`).
    private let texts: [String: String]
    /// January first; the form a date uses (the genitive in Russian).
    package let months: [String]
    private let numbers: NumberStyle
    private let plural: PluralRule
    /// How the first of the month is written, when not as a number (`1er` in French).
    private let firstDay: String?
    /// Keys written in English because neither a catalog nor the site translates them.
    package let untranslated: [String]

    package static let english = SiteLanguage(tag: "en")

    /// `tag`'s language with the site's `overrides`; throws for a key the theme does not have, a
    /// placeholder the string does not take, a plural category the language has no use for, or
    /// months that are not twelve. `theme`: the language's file in the site's own theme
    /// (``themeCatalog(for:in:)``), which takes the built-in one's place.
    package init(tag: String, overrides: [StringOverride] = [], theme: Catalog? = nil) throws(StringOverride.Problem) {
        self.init(tag: tag, theme: theme)
        var texts = self.texts
        var months = self.months
        var untranslated = Set(self.untranslated)
        for override in overrides {
            if override.key == "months" {
                guard override.list.count == 12 else { throw .init(override, "`months` needs 12 names, January first") }
                months = override.list
                untranslated.remove("months")
                continue
            }
            guard let key = Self.keys[override.key] else {
                throw .init(
                    override,
                    "unknown string `\(override.key)`; the theme's strings are "
                        + Self.stringKeys.joined(separator: ", "))
            }
            if override.forms.isEmpty {
                throw .init(override, "`\(override.key)` gives no text; write one, or remove the key")
            }
            for (category, text) in override.forms {
                if override.key != "separator", text.allSatisfy({ $0.isWhitespace }) {
                    throw .init(
                        override,
                        "`\(override.key)` is empty: a label must say something (remove the key for the built-in one)")
                }
                if let category {
                    guard key.isPlural else {
                        throw .init(override, "`\(override.key)` has no plural forms; give it as one string")
                    }
                    guard plural.categories.contains(category) else {
                        throw .init(
                            override,
                            "`\(category)` is no plural form in \(tag); use "
                                + plural.categories.joined(separator: ", "))
                    }
                }
                for placeholder in Self.placeholders(in: text) where !key.placeholders.contains(placeholder) {
                    throw .init(
                        override,
                        "`\(override.key)` takes "
                            + (key.placeholders.isEmpty
                                ? "no placeholder"
                                : key.placeholders.map { "{\($0)}" }.joined(separator: ", "))
                            + ", not {\(placeholder)}")
                }
                if key.isPlural {
                    for form in category.map({ [$0] }) ?? plural.categories {
                        texts["\(override.key).\(form)"] = text
                    }
                } else {
                    texts[override.key] = text
                }
            }
            untranslated.remove(override.key)
        }
        self.init(
            tag: tag, catalog: catalog, isRightToLeft: isRightToLeft, texts: texts, months: months,
            numbers: numbers, plural: plural, firstDay: firstDay, untranslated: untranslated.sorted())
    }

    /// The file a language's words are in, by the tag's subtags: `pt-PT` for Portuguese as
    /// Portugal and Africa write it, none for Chinese in traditional characters (simplified ones
    /// would be wrong) unless the tag says simplified (`zh-Hans-HK`), else the language's.
    static func catalogKey(for tag: String) -> String? {
        let subtags = tag.lowercased().split(separator: "-").map(String.init)
        let language = subtags.first ?? "en"
        let rest = Set(subtags.dropFirst())
        if language == "zh", !rest.contains("hans"), !rest.isDisjoint(with: ["hant", "tw", "hk", "mo"]) { return nil }
        if language == "pt", !rest.isDisjoint(with: ["pt", "ao", "mz"]) { return "pt-PT" }
        return language
    }

    /// `tag`'s strings from `theme` (the site's theme's file) or the built-in file, English where
    /// there are none.
    private init(tag: String, theme: Catalog? = nil) {
        let subtags = tag.lowercased().split(separator: "-").map(String.init)
        let language = subtags.first ?? "en"
        let rest = Set(subtags.dropFirst())
        let catalogKey = Self.catalogKey(for: tag)
        let key = catalogKey ?? language
        var found = theme ?? catalogKey.flatMap { Self.catalogs[$0] }
        // Arabic as the Maghreb writes it: Latin digits.
        if language == "ar", !rest.isDisjoint(with: ["ma", "dz", "tn", "eh", "ly"]) {
            found?.numbers = NumberStyle(decimal: ",", group: ".")
        }
        let english = (language == "en" ? theme : nil) ?? Self.catalogs["en"] ?? Catalog(texts: [:], months: [])
        var texts = english.texts
        for (key, text) in found?.texts ?? [:] { texts[key] = text }
        // English plural forms are no forms of another language's.
        if let found {
            for key in Self.keys.values where key.isPlural {
                texts["\(key.name).one"] = nil
                texts["\(key.name).other"] = nil
                for category in found.plural.categories {
                    texts["\(key.name).\(category)"] = found.texts["\(key.name).\(category)"]
                }
            }
        }
        self.init(
            tag: tag, catalog: found.map { _ in key },
            isRightToLeft: Self.rightToLeft.contains(language) || !rest.isDisjoint(with: Self.rightToLeftScripts),
            texts: texts, months: found?.months ?? english.months, numbers: found?.numbers ?? english.numbers,
            plural: found?.plural ?? Self.pluralRules[language] ?? .english, firstDay: found?.firstDay,
            untranslated: found == nil && language != "en" ? Self.keys.keys.sorted() + ["months"] : [])
    }

    private init(
        tag: String, catalog: String?, isRightToLeft: Bool, texts: [String: String], months: [String],
        numbers: NumberStyle, plural: PluralRule, firstDay: String? = nil, untranslated: [String]
    ) {
        self.tag = tag
        self.catalog = catalog
        self.isRightToLeft = isRightToLeft
        self.texts = texts
        self.months = months
        self.numbers = numbers
        self.plural = plural
        self.firstDay = firstDay
        self.untranslated = untranslated
    }

    /// Scripts written right to left, by their subtag (`az-Arab`).
    static let rightToLeftScripts: Set<String> = ["arab", "hebr", "thaa", "syrc", "nkoo", "adlm"]

    /// The plural rules of languages without a catalog, so that a site's `strings:` can give
    /// their forms (by language subtag; English's for any other).
    static let pluralRules: [String: PluralRule] = [
        "uk": .russian, "be": .russian, "pl": .polish, "cs": .czech, "sk": .czech, "he": .hebrew, "iw": .hebrew,
        "ko": .none, "vi": .none, "th": .none, "id": .none, "ms": .none, "lo": .none, "km": .none, "my": .none,
        "pt": .french,
    ]

    /// Languages written right to left, by their language subtag.
    static let rightToLeft: Set<String> = ["ar", "he", "iw", "fa", "ur", "ps", "yi", "dv", "ckb", "sd", "ug"]

    /// True for a tag as BCP 47 writes one: a language of 2 or 3 letters, then subtags of 1 to 8
    /// letters or digits, each after a hyphen.
    package static func isWellFormed(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count),
            first.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count)
                && part.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                }
        }
    }

    package var direction: String { isRightToLeft ? "rtl" : "ltr" }

    /// The string under `key` with its placeholders filled (`{count}`), as text.
    package func text(_ key: String, _ values: [String: String] = [:]) -> String {
        Self.fill(texts[key] ?? key, values)
    }

    /// The plural string under `key` for `count`, its `{count}` written in this language.
    package func text(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        let form = texts["\(key).\(plural.category(of: count))"] ?? texts["\(key).other"] ?? key
        return Self.fill(form, values.merging(["count": number(count)]) { first, _ in first })
    }

    /// `1,234` in English, `1.234` in German, `١٬٢٣٤` in Arabic.
    package func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        let groups = digits.count >= 4 + numbers.minimumGrouping - 1
        for (offset, digit) in digits.enumerated() {
            if groups, offset > 0, (digits.count - offset) % 3 == 0 { grouped += numbers.group }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + localDigits(grouped)
    }

    /// `tenths` tenths with one decimal: `4.2`, `4,2`, `٤٫٢`.
    package func decimal(tenths: Int) -> String {
        number(tenths / 10) + numbers.decimal + localDigits(String(tenths % 10))
    }

    /// `4.2 MB`, `830 kB`, in decimal units as file managers show them.
    package func byteSize(_ bytes: Int64) -> String {
        let value = Double(bytes)
        if value >= 1e9 { return text("gigabytes", ["size": decimal(tenths: Int((value / 1e8).rounded()))]) }
        if value >= 1e6 { return text("megabytes", ["size": decimal(tenths: Int((value / 1e5).rounded()))]) }
        return text("kilobytes", ["size": number(max(1, Int((value / 1e3).rounded())))])
    }

    /// A day and, when known, the time (`14:32`), as this language writes them.
    package func date(year: Int, month: Int, day: Int, time: String?) -> String {
        let date = text(
            "date",
            [
                "day": day == 1 ? firstDay ?? number(day) : number(day), "month": months[max(1, min(12, month)) - 1],
                "month_number": number(month),
                "year": localDigits(String(year)),
            ])
        guard let time else { return date }
        return text("date_time", ["date": date, "time": localDigits(time)])
    }

    /// The parts of a list joined as this language joins them in parentheses: `JPEG, 4.2 MB`.
    package func list(_ parts: [String]) -> String {
        parts.joined(separator: text("separator"))
    }

    /// What a script needs to write numbers as the pages do: its digits, when not 0-9, and the
    /// group separator.
    package var numberStyle: (digits: String?, group: String, minimumGrouping: Int) {
        (numbers.digits, numbers.group, numbers.minimumGrouping)
    }

    private func localDigits(_ text: String) -> String {
        guard let digits = numbers.digits.map(Array.init) else { return text }
        return String(
            text.map { character in
                guard let value = character.wholeNumberValue, character.isASCII else { return character }
                return digits[value]
            })
    }

    /// Placeholders set off by braces: `{count}`.
    package static func placeholders(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }

    private static func fill(_ text: String, _ values: [String: String]) -> String {
        guard text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            result += values[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Its values in a stable order, for the pages' fingerprints and the up-to-date check.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(tag)
        try container.encode(isRightToLeft)
        for key in texts.keys.sorted() {
            try container.encode(key)
            try container.encode(texts[key] ?? "")
        }
        try container.encode(months)
    }

    /// Its values in a stable order (a dictionary's order changes from process to process), for
    /// the up-to-date check's record of the settings.
    package var debugDescription: String {
        "SiteLanguage(\(tag), \(direction), "
            + texts.keys.sorted().map { "\($0)=\(texts[$0] ?? "")" }.joined(separator: "|")
            + ", \(months.joined(separator: "|")))"
    }

    /// A string of the theme: its name, whether it has plural forms, the placeholders it takes.
    package struct Key: Sendable {
        package var name: String
        package var placeholders: [String] = []
        package var isPlural = false
    }

    /// How a language writes numbers.
    struct NumberStyle: Sendable, Equatable {
        var decimal = "."
        var group = ","
        /// Digits before the first group separator appears: 2 in Spanish (`1234`, `12.345`).
        var minimumGrouping = 1
        /// Its ten digits, when not 0-9.
        var digits: String?
    }

    /// Which plural form a whole number takes (CLDR's rules, for integers).
    enum PluralRule: String, Sendable, Equatable, CaseIterable {
        /// one: 1.
        case english
        /// one: 0 and 1 (French, Portuguese).
        case french
        /// one, few (2-4), many: Russian.
        case russian
        /// zero, one, two, few (3-10), many (11-99), other: Arabic.
        case arabic
        /// one (1), few (2-4 but 12-14), many: Polish.
        case polish
        /// one, few (2-4), other: Czech, Slovak.
        case czech
        /// one, two, other: Hebrew.
        case hebrew
        /// other only: Japanese, Chinese.
        case none

        var categories: [String] {
            switch self {
            case .english, .french: ["one", "other"]
            case .russian: ["one", "few", "many"]
            case .arabic: ["zero", "one", "two", "few", "many", "other"]
            case .polish: ["one", "few", "many"]
            case .czech: ["one", "few", "other"]
            case .hebrew: ["one", "two", "other"]
            case .none: ["other"]
            }
        }

        func category(of count: Int) -> String {
            let n = count.magnitude
            switch self {
            case .english: return n == 1 ? "one" : "other"
            case .french: return n <= 1 ? "one" : "other"
            case .russian:
                if n % 10 == 1, n % 100 != 11 { return "one" }
                if (2...4).contains(n % 10), !(12...14).contains(n % 100) { return "few" }
                return "many"
            case .arabic:
                switch n {
                case 0: return "zero"
                case 1: return "one"
                case 2: return "two"
                default:
                    if (3...10).contains(n % 100) { return "few" }
                    if (11...99).contains(n % 100) { return "many" }
                    return "other"
                }
            case .polish:
                if n == 1 { return "one" }
                if (2...4).contains(n % 10), !(12...14).contains(n % 100) { return "few" }
                return "many"
            case .czech: return n == 1 ? "one" : (2...4).contains(n) ? "few" : "other"
            case .hebrew: return n == 1 ? "one" : n == 2 ? "two" : "other"
            case .none: return "other"
            }
        }
    }

    /// One language's strings.
    package struct Catalog: Sendable {
        var texts: [String: String]
        var months: [String]
        var numbers = NumberStyle()
        var plural = PluralRule.english
        var firstDay: String?
    }
}

/// A string the site gives in gallery.yml's `strings:`, in place of the theme's.
package struct StringOverride: Sendable, Equatable {
    package var key: String
    /// The text, by plural category (nil: every form); sorted by category.
    package var forms: [(category: String?, text: String)]
    /// `months:`' twelve names.
    package var list: [String] = []
    package var location: SourceLocation?

    package init(
        key: String, forms: [(category: String?, text: String)], list: [String] = [], location: SourceLocation?
    ) {
        self.key = key
        self.forms = forms
        self.list = list
        self.location = location
    }

    package static func == (lhs: StringOverride, rhs: StringOverride) -> Bool {
        lhs.key == rhs.key && lhs.list == rhs.list && lhs.location == rhs.location
            && lhs.forms.map(\.category) == rhs.forms.map(\.category) && lhs.forms.map(\.text) == rhs.forms.map(\.text)
    }

    /// Why an override cannot be taken, and where it stands.
    package struct Problem: Error, Sendable {
        package var location: SourceLocation?
        package var message: String

        init(_ override: StringOverride, _ message: String) {
            location = override.location
            self.message = message
        }
    }
}
