import Foundation
import GalleryCore
import Testing

@testable import Rendering

/// Every page, feed and viewer label speaks the site's language (`language:`), right to left
/// where it is written so.
@Suite struct LanguagePagesTests {
    func render(_ tag: String, overrides: [StringOverride] = []) async throws -> [String: String] {
        var first = SiteRendererTests.item(0, title: "Harbour", album: "Coast")
        first.photo.metadata = PhotoMetadata(
            keywords: ["Sea"], taken: CaptureTime(local: "2024-03-12T14:05:00"),
            location: GeoPoint(latitude: 59.91, longitude: 10.75))
        first.download = Download(path: "originals/ab.jpg", fileName: "a.jpg", byteCount: 4_210_000, kind: "JPEG")
        var items = [first]
        items += (1..<1_205).map { SiteRendererTests.item($0, title: "", album: $0 % 2 == 0 ? "Coast" : "Hills") }
        var gallery = Gallery(title: "Field notes", introHTML: "", baseURL: nil, items: items)
        gallery.albums[["Coast"], default: AlbumDetails()].download = Download(
            path: "downloads/c.zip", fileName: "Coast.zip", byteCount: 1_700_000, kind: "ZIP", photoCount: 603)
        let renderer = try await SiteRenderer(
            configuration: .init(
                themeDirectory: SiteRendererTests.themeDirectory, pageSize: 600, location: .city,
                language: try SiteLanguage(tag: tag, overrides: overrides)))
        let files = try await renderer.render(gallery)
        return Dictionary(uniqueKeysWithValues: files.map { ($0.path, String(decoding: $0.contents, as: UTF8.self)) })
    }

    @Test func germanPagesSayEverythingInGerman() async throws {
        let files = try await render("de")
        let index = try #require(files["index.html"])
        #expect(index.contains(#"<html lang="de" dir="ltr">"#))
        #expect(index.contains(">Zu den Fotos springen</a>"))
        #expect(index.contains("<p>1.205 Fotos · erstellt mit gallerygen</p>"))
        #expect(index.contains(#"Weiter <span class="arrow" aria-hidden="true">→</span>"#))
        #expect(index.contains(#""close":"Schließen""#) && index.contains(#""position":"{number} von {count}""#))
        #expect(try #require(files["page-2.html"]).contains("<title>Field notes · Seite 2</title>"))
        let album = try #require(files["album-coast.html"])
        #expect(album.contains(#">Album herunterladen</a> <span class="details">(ZIP, 603 Fotos, 1,7 MB)</span>"#))
        let photo = try #require(files["photos/harbour-1.html"])
        #expect(!photo.contains(#"class="position""#))
        #expect(photo.contains(#"Aufgenommen am <time datetime="2024-03-12T14:05:00">12. März 2024 um 14:05</time>"#))
        #expect(photo.contains("<p class=\"place\">Aufnahmeort: <a "))
        #expect(photo.contains(#">Original herunterladen</a> <span class="details">(JPEG, 4,2 MB)</span>"#))
        #expect(photo.contains(#"<ul class="keywords" aria-label="Schlagwörter">"#))
        #expect(try #require(files["keyword-sea.html"]).contains("Fotos mit dem Schlagwort „Sea“"))
        #expect(try #require(files["feed.xml"]).contains(#"xml:lang="de""#))
        #expect(try #require(files["feed.json"]).contains(#""language": "de","#))
        // A photo without a title is named in German.
        #expect(index.contains(#"alt="Foto 2""#))
        #expect(!index.contains("All photos") && !photo.contains("All photos") && !photo.contains(" of "))
    }

    @Test func arabicPagesAreRightToLeftWithArabicDigits() async throws {
        let files = try await render("ar")
        let index = try #require(files["index.html"])
        #expect(index.contains(#"<html lang="ar" dir="rtl">"#))
        #expect(index.contains("<p>١٬٢٠٥ صور · صُنع باستخدام gallerygen</p>"))
        #expect(index.contains(#""digits":"٠١٢٣٤٥٦٧٨٩""#))
        let photo = try #require(files["photos/harbour-1.html"])
        #expect(!photo.contains(#"class="position""#))
        #expect(photo.contains("١٢ مارس ٢٠٢٤، ١٤:٠٥"))
    }

    @Test func theSitesOwnWordsReachThePages() async throws {
        let files = try await render(
            "en",
            overrides: [
                StringOverride(key: "made_with", forms: [(nil, "photos <by> Ana")], location: nil),
                StringOverride(key: "close", forms: [(nil, "</script><b>\u{2028}")], location: nil),
            ])
        let index = try #require(files["index.html"])
        #expect(index.contains("<p>1,205 photos · photos &lt;by&gt; Ana</p>"))
        // Nothing a string says can end the viewer's JSON.
        let viewer = try #require(
            index.components(separatedBy: #"<script type="application/json" id="viewer-text">"#).last?
                .components(separatedBy: "</script>").first)
        #expect(viewer.contains(#""close":"\u003c/script>\u003cb>\u2028""#))
        #expect(!viewer.contains("<"))
    }

    @Test func anotherLanguageChangesEveryPagesFingerprint() async throws {
        let gallery = Gallery(
            title: "G", introHTML: "", baseURL: nil, items: (0..<3).map { SiteRendererTests.item($0) })
        var prints: [Set<String>] = []
        var sources: [PageFingerprint] = []
        for tag in ["en", "de"] {
            let renderer = try await SiteRenderer(
                configuration: .init(
                    themeDirectory: SiteRendererTests.themeDirectory, language: try SiteLanguage(tag: tag)))
            let files = try await renderer.render(gallery)
            prints.append(Set(files.compactMap { $0.fingerprint.map { "\($0)" } }))
            sources.append(await renderer.sourcesFingerprint(of: gallery))
        }
        #expect(!prints[0].isEmpty && prints[0].isDisjoint(with: prints[1]))
        #expect(sources[0] != sources[1])
    }
}
