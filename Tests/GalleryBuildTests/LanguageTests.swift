import Foundation
import Testing

@testable import GalleryBuild
@testable import GalleryCore

/// `language:` and `strings:`: the built-in catalogs are whole, plural forms, numbers and dates are
/// written as each language writes them, and the site's own words replace any string or stop the
/// build at their line.
@Suite struct LanguageTests {
    func load(_ text: String) throws(ConfigError) -> SiteConfig {
        try ConfigLoader().config(from: "title: T\nfeed: feed.json\n" + text, name: "gallery.yml")
    }

    /// The languages are data: a file each in the theme (`languages/<tag>.json`), every one of
    /// which reads, and a folder with one more file has one more language.
    @Test func aLanguageIsAFileInTheTheme() throws {
        let folder = try #require(BuiltInTheme.folder).appendingPathComponent("languages")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        let catalogs = SiteLanguage.loadCatalogs(from: folder)
        #expect(Set(catalogs.keys) == Set(files.map { String($0.dropLast(5)) }), "every file reads")
        #expect(SiteLanguage.builtInLanguages == ["ar", "de", "en", "es", "fr", "it", "ja", "nl", "pt", "ru", "zh"])
        #expect(catalogs["pt-PT"] != nil, "Portugal's words, beside Brazil's")

        let more = FileManager.default.temporaryDirectory.appendingPathComponent("languages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: more, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: more) }
        for file in files {
            try FileManager.default.copyItem(
                at: folder.appendingPathComponent(file), to: more.appendingPathComponent(file))
        }
        let swedish =
            #"{"strings": {"all_photos": "Alla foton"}, "months": ["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"], "numbers": {"decimal": ",", "group": " "}}"#
        try swedish.write(to: more.appendingPathComponent("sv.json"), atomically: true, encoding: .utf8)
        try #"{"strings": {}, "months": ["one"]}"#.write(
            to: more.appendingPathComponent("xx.json"), atomically: true, encoding: .utf8)
        let grown = SiteLanguage.loadCatalogs(from: more)
        #expect(grown.count == catalogs.count + 1 && grown["sv"]?.texts["all_photos"] == "Alla foton")
        #expect(grown["xx"] == nil, "months that are not twelve: not a language")
    }

    /// A theme of the site's own has its languages' files too (copied with the theme): the one of
    /// the site's language takes the built-in one's place, the site's `strings:` still go over
    /// it, and one that cannot be used stops the build naming the file.
    @Test func aThemesOwnLanguageFileIsItsWords() throws {
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("theme-language-\(UUID().uuidString)")
        let languages = site.appendingPathComponent("theme/languages")
        try FileManager.default.createDirectory(at: languages, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: site) }
        let months =
            #"["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"]"#
        func write(_ tag: String, _ text: String) throws {
            try text.write(to: languages.appendingPathComponent("\(tag).json"), atomically: true, encoding: .utf8)
        }
        func load(_ text: String) throws(ConfigError) -> SiteLanguage {
            try ConfigLoader().config(
                from: "title: T\nfeed: feed.json\ntemplates: theme\n" + text, name: "gallery.yml", siteDirectory: site
            ).language
        }
        try write(
            "sv",
            #"{"strings": {"all_photos": "Alla foton", "photo_count.one": "{count} foto", "photo_count.other": "{count} foton"}, "months": \#(months), "numbers": {"decimal": ",", "group": " "}}"#
        )
        let swedish = try load("language: sv\n")
        #expect(swedish.catalog == "sv" && swedish.text("all_photos") == "Alla foton")
        #expect(swedish.text("photo_count", count: 2) == "2 foton" && swedish.months[2] == "mars")
        #expect(swedish.text("close") == "Close", "a string the file leaves out is English")
        #expect(try load("language: sv\nstrings:\n  all_photos: Alla bilder\n").text("all_photos") == "Alla bilder")
        // German, which the theme leaves alone, is gallerygen's; the theme's English is English.
        #expect(try load("language: de\n").text("all_photos") == (try SiteLanguage(tag: "de")).text("all_photos"))
        try write("en", #"{"strings": {"all_photos": "Every photo"}, "months": \#(months)}"#)
        #expect(try load("").text("all_photos") == "Every photo")

        for (file, said) in [
            (#"{"strings": {"all_foto": "x"}, "months": \#(months)}"#, "`all_foto` is no string of the theme"),
            (#"{"strings": {"all_photos": "{count}"}, "months": \#(months)}"#, "`all_photos` does not take {count}"),
            (#"{"strings": {}, "months": ["one"]}"#, "needs twelve `months`"),
            ("not json", "is not a language's file"),
        ] {
            try write("sv", file)
            #expect {
                try load("language: sv\n")
            } throws: { error in
                let message = "\(error)"
                return message.contains(said) && message.contains("theme/languages/sv.json")
            }
        }
    }

    @Test(arguments: SiteLanguage.builtInLanguages)
    func everyBuiltInLanguageSaysEveryString(tag: String) throws {
        let language = try SiteLanguage(tag: tag)
        #expect(language.catalog == tag)
        #expect(language.untranslated.isEmpty)
        #expect(language.months.count == 12 && Set(language.months).count == 12)
        let english = SiteLanguage.english
        for key in SiteLanguage.stringKeys where key != "months" {
            let definition = SiteLanguage.keys[key]
            guard definition?.isPlural == true else {
                let text = language.text(key)
                #expect(text != key, "\(tag) has no \(key)")
                if tag != "en",
                    ![
                        "albums", "photos", "source", "zoom", "licence", "kilobytes", "megabytes", "gigabytes",
                        "separator", "pages", "page_number", "date", "date_time", "position", "photo_number", "video",
                    ].contains(key)
                {
                    #expect(text != english.text(key), "\(tag)'s \(key) is the English one")
                }
                // Every placeholder the key takes is one it may take.
                #expect(
                    SiteLanguage.placeholders(in: text).allSatisfy { definition?.placeholders.contains($0) == true })
                continue
            }
            // Each count from 0 to 200 finds a form of this language's, which says its number
            // unless the form is for one number only (Arabic says "one photo" and "two photos").
            for count in 0...200 {
                let text = language.text(key, count: count)
                #expect(!text.contains("{") && text != key, "\(tag) \(key) \(count): \(text)")
                if count > 2 { #expect(text.contains(language.number(count)), "\(tag) \(key) \(count): \(text)") }
            }
        }
    }

    @Test func pluralFormsFollowEachLanguagesRules() throws {
        let russian = try SiteLanguage(tag: "ru")
        #expect(
            [1, 2, 5, 11, 21, 22, 25, 111, 112].map { russian.text("photo_count", count: $0) } == [
                "1 фотография", "2 фотографии", "5 фотографий", "11 фотографий", "21 фотография", "22 фотографии",
                "25 фотографий", "111 фотографий", "112 фотографий",
            ])
        let arabic = try SiteLanguage(tag: "ar")
        #expect(
            [0, 1, 2, 3, 11, 100, 103].map { arabic.text("photo_count", count: $0) } == [
                "لا توجد صور", "صورة واحدة", "صورتان", "٣ صور", "١١ صورة", "١٠٠ صورة", "١٠٣ صور",
            ])
        let french = try SiteLanguage(tag: "fr")
        #expect([0, 1, 2].map { french.text("photo_count", count: $0) } == ["0 photo", "1 photo", "2 photos"])
        #expect(SiteLanguage.english.text("photo_count", count: 0) == "0 photos")
        #expect(try SiteLanguage(tag: "ja").text("photo_count", count: 1) == "写真1枚")
    }

    @Test func numbersAndSizesAreWrittenTheLanguagesWay() throws {
        #expect(SiteLanguage.english.number(1_234_567) == "1,234,567")
        #expect(try SiteLanguage(tag: "de").number(1_234_567) == "1.234.567")
        #expect(try SiteLanguage(tag: "fr").number(12_345) == "12\u{202F}345")
        // Spanish groups from five digits on.
        #expect(try SiteLanguage(tag: "es").number(1234) == "1234")
        #expect(try SiteLanguage(tag: "es").number(12_345) == "12.345")
        #expect(try SiteLanguage(tag: "ar").number(1234) == "١٬٢٣٤")
        #expect(SiteLanguage.english.byteSize(4_210_000) == "4.2 MB")
        #expect(try SiteLanguage(tag: "de").byteSize(4_210_000) == "4,2 MB")
        #expect(try SiteLanguage(tag: "fr").byteSize(830_000) == "830\u{00A0}ko")
        #expect(try SiteLanguage(tag: "ar").byteSize(2_500_000_000) == "٢٫٥ غيغابايت")
    }

    @Test func datesAreWrittenTheLanguagesWay() throws {
        func date(_ tag: String) throws -> String {
            try SiteLanguage(tag: tag).date(year: 2024, month: 3, day: 12, time: "14:05")
        }
        #expect(try date("en") == "12 March 2024, 14:05")
        #expect(try date("de") == "12. März 2024 um 14:05")
        // The first of the month, as French writes it.
        #expect(try SiteLanguage(tag: "fr").date(year: 2024, month: 3, day: 1, time: nil) == "1er mars 2024")
        #expect(try date("fr") == "12 mars 2024 à 14:05")
        #expect(try date("es") == "12 de marzo de 2024, 14:05")
        #expect(try date("ru") == "12 марта 2024\u{00A0}г., 14:05")
        #expect(try date("ja") == "2024年3月12日 14:05")
        #expect(try date("zh-Hans") == "2024年3月12日 14:05")
        #expect(try date("ar") == "١٢ مارس ٢٠٢٤، ١٤:٠٥")
    }

    @Test func theTagChoosesStringsAndDirection() throws {
        #expect(try load("").language == SiteLanguage.english)
        let brazil = try load("language: pt-BR\n").language
        #expect(brazil.tag == "pt-BR" && brazil.catalog == "pt" && brazil.direction == "ltr")
        #expect(brazil.text("all_photos") == "Todas as fotos")
        let arabic = try load("language: ar\n").language
        #expect(arabic.isRightToLeft && arabic.catalog == "ar")
        // No catalog: the tag and its direction stand, the strings are English, and the build is told.
        let hebrew = try load("language: he\n").language
        #expect(hebrew.isRightToLeft && hebrew.catalog == nil && hebrew.text("close") == "Close")
        #expect(hebrew.untranslated.count == SiteLanguage.stringKeys.count)
        #expect(try load("language: zh-TW\n").language.catalog == nil)
        #expect(try load("language: zh-CN\n").language.catalog == "zh")
        #expect(try load("language: zh-Hans-HK\n").language.catalog == "zh")
        // A script written right to left makes the page so, whatever the language.
        #expect(try load("language: az-Arab\n").language.isRightToLeft)
        // Arabic as the Maghreb writes it: Latin digits.
        #expect(try load("language: ar-MA\n").language.number(1234) == "1.234")
        // Portuguese as Portugal writes it: its words, and one for 1 only.
        let portugal = try load("language: pt-PT\n").language
        #expect(portugal.catalog == "pt-PT" && portugal.untranslated.isEmpty)
        #expect(portugal.text("download") == "Transferir" && brazil.text("download") == "Baixar")
        #expect(portugal.text("photo_count", count: 0) == "0 fotografias")
        #expect(brazil.text("photo_count", count: 0) == "0 foto")
        for bad in ["english", "e", "de_DE", "de-", "12", "de-toolongsubtag"] {
            #expect {
                try load("language: \(bad)\n")
            } throws: { error in
                "\(error)".contains("gallery.yml:3:11") && "\(error)".contains("no language tag")
            }
        }
    }

    @Test func theSitesOwnWordsReplaceAnyString() throws {
        let language = try load(
            """
            language: de
            strings:
              made_with: "Fotos von Ana"
              photo_count: {one: "ein Bild", other: "{count} Bilder"}
              album_count: "{count} Sammlungen"
              months: [Jan, Feb, Mär, Apr, Mai, Jun, Jul, Aug, Sep, Okt, Nov, Dez]

            """
        ).language
        #expect(language.text("made_with") == "Fotos von Ana")
        #expect(language.text("photo_count", count: 1) == "ein Bild")
        #expect(language.text("photo_count", count: 3) == "3 Bilder")
        #expect(language.text("album_count", count: 1) == "1 Sammlungen")
        #expect(language.date(year: 2024, month: 3, day: 1, time: nil) == "1. Mär 2024")
        #expect(language.text("close") == "Schließen")
        // Words for a language without a catalog count as translated.
        let swedish = try load("language: sv\nstrings:\n  close: Stäng\n").language
        #expect(swedish.text("close") == "Stäng" && !swedish.untranslated.contains("close"))
        #expect(swedish.untranslated.count == SiteLanguage.stringKeys.count - 1)
        // A language without a catalog has its plural rule, so its forms can be given.
        let polish = try load(
            "language: pl\nstrings:\n  photo_count: {one: \"{count} zdjęcie\", few: \"{count} zdjęcia\", many: \"{count} zdjęć\"}\n"
        ).language
        #expect(
            [1, 3, 5, 22, 25].map { polish.text("photo_count", count: $0) } == [
                "1 zdjęcie", "3 zdjęcia", "5 zdjęć", "22 zdjęcia", "25 zdjęć",
            ])
    }

    @Test func wordsThatCannotBeTakenStopAtTheirLine() {
        let cases: [(String, String, String)] = [
            ("strings:\n  clsoe: x\n", "gallery.yml:4:3", "did you mean \"close\""),
            ("strings:\n  position: \"{number} of {total}\"\n", "gallery.yml:4:13", "not {total}"),
            ("strings:\n  close: {one: x}\n", "gallery.yml:4:10", "no plural forms"),
            ("language: ja\nstrings:\n  photo_count: {one: x}\n", "gallery.yml:5:16", "`one` is no plural form in ja"),
            ("strings:\n  months: [a, b]\n", "gallery.yml:4:11", "12 names"),
            ("strings: [a]\n", "gallery.yml:3:10", "must be a mapping"),
            ("strings:\n  close: \"  \"\n", "gallery.yml:4:10", "`close` is empty"),
            ("strings:\n  photo_count: {}\n", "gallery.yml:4:16", "gives no text"),
            ("strings:\n  months: January\n", "gallery.yml:4:11", "list of twelve names"),
        ]
        for (text, place, message) in cases {
            #expect {
                try load(text)
            } throws: { error in
                "\(error)".contains(place) && "\(error)".contains(message)
            }
        }
    }

    @Test func theSettingsRecordIsTheSameInEveryProcess() throws {
        // The up-to-date check keeps `String(reflecting:)` of the settings: a dictionary's order
        // would change from one process to the next.
        let config = try load("language: de\n")
        #expect(
            String(reflecting: config).contains(
                "SiteLanguage(de, ltr, album_count.one={count} Album|album_count.other="))
    }

    @Test func theLanguagesGuideListsEveryString() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/languages.md"), encoding: .utf8)
        for key in SiteLanguage.stringKeys { #expect(guide.contains("| `\(key)` |"), "\(key)") }
        for tag in SiteLanguage.builtInLanguages { #expect(guide.contains("| `\(tag)` |"), "\(tag)") }
    }
}
