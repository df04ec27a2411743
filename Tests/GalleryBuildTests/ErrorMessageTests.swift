import Feed
import Foundation
import GalleryBuild
import GalleryCore
import Imaging
import Loading
import Rendering
import TestSupport
import Testing
import Video

/// What a user reads of each stage's error, word for word, as it read before the stages shared
/// one error shape (``LocatedError``, ``StageError``).
@Suite struct ErrorMessageTests {
    struct Underneath: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    static let spot = SourceLocation(file: "feed.json", line: 3, column: 13)

    @Test func everyStagesErrorReadsAsItDid() {
        let cases: [(any Error, String)] = [
            (
                FeedError(.invalidJSON, "invalid JSON: expected a value", location: Self.spot),
                "feed.json:3:13: invalid JSON: expected a value"
            ),
            (
                FeedError(.unreadableFolder, "photos: cannot list the folder", underlying: Underneath()),
                "photos: cannot list the folder (disk on fire)"
            ),
            (FeedError(.wrongShape, "statuses: not a list"), "statuses: not a list"),
            (
                RenderingError(
                    .templateSyntax, "template error: unclosed section", location: Self.spot,
                    underlying: Underneath()),
                "feed.json:3:13: template error: unclosed section (disk on fire)"
            ),
            (ImagingError(.decode, "VipsJpeg: premature end of JPEG image"), "VipsJpeg: premature end of JPEG image"),
            (
                ImagingError(.write, "cannot write a rendition", underlying: Underneath()),
                "cannot write a rendition (disk on fire)"
            ),
            (VideoError(.transcode, "ffmpeg gave no output for 30 s"), "ffmpeg gave no output for 30 s"),
            (
                LoadingError(.httpStatus, url: "https://cdn.example.com/a.jpg", "HTTP 404", status: 404),
                "https://cdn.example.com/a.jpg: HTTP 404"
            ),
            (
                LoadingError(
                    .network, url: "https://cdn.example.com/a.jpg", "cannot connect", underlying: Underneath()),
                "https://cdn.example.com/a.jpg: cannot connect (disk on fire)"
            ),
            (
                ConfigError(
                    file: "gallery.yml", location: SourceLocation(file: "gallery.yml", line: 4, column: 3),
                    "unknown key \"widht\""),
                "gallery.yml:4:3: unknown key \"widht\""
            ),
            (
                ConfigError(
                    .unreadable, file: "gallery.yml", location: nil, "cannot read it", underlying: Underneath()),
                "gallery.yml: cannot read it (disk on fire)"
            ),
            (
                BuildError(.theme, underlying: RenderingError(.missingTemplate, "theme: no page.mustache")),
                "theme: no page.mustache"
            ),
        ]
        for (error, expected) in cases {
            #expect(String(describing: error) == expected)
        }
        var stepped = BuildError(.feed, "the feed has no usable entry", location: Self.spot)
        stepped.step = "read the feed"
        #expect(stepped.description == "feed.json:3:13: the feed has no usable entry (step: read the feed)")
        #expect(ImagingError(.write, "cannot write", underlying: Underneath()).detail == "cannot write (disk on fire)")
        #expect(
            LoadingError(.network, url: "u", "cannot connect", underlying: Underneath()).detail
                == "cannot connect (disk on fire)")
    }

    /// A theme that fails while the pages are rendered reaches the build as the theme's own error,
    /// under the build's `theme` code: not as its words in a string.
    @Test func aThemesErrorDuringTheRenderStaysItself() async throws {
        let site = try FixtureSite(
            count: 1, extraConfig: "templates: theme",
            extraEntries: [#"{"title": "Spiders", "imageUrl": "photos/p1.jpg", "contentWarning": "spiders"}"#])
        let theme = site.folder.file("theme")
        try FileManager.default.createDirectory(at: theme, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try #require(SiteRenderer.builtInTheme).appendingPathComponent("page.mustache"),
            to: theme.appendingPathComponent("page.mustache"))
        try #"{{#image}}<li><img src="{{{src}}}" alt="{{alt}}"></li>{{/image}}"#.write(
            to: theme.appendingPathComponent("photo.mustache"), atomically: true, encoding: .utf8)
        var error: BuildError?
        do {
            _ = try await SiteBuilder(siteDirectory: site.url, options: BuildOptions()).build()
        } catch let thrown {
            error = thrown
        }
        #expect(error?.code == .theme)
        let themeError = error?.underlying as? RenderingError
        #expect(themeError?.code == .missingTemplate)
        #expect(themeError?.message.contains("photo.mustache show no content warning") == true)
    }
}
