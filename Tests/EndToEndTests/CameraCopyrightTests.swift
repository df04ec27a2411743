import Foundation
import TestSupport
import Testing

/// EXIF's Copyright as cameras fill it (Fixtures/real-metadata: a Ricoh that pads the notice with
/// spaces, a Nikon whose padded `Copyright,` stands before an IPTC notice, a FujiFilm of spaces alone, an Olympus of NUL bytes), on the photo page,
/// in its structured data and in the Atom feed: as written, and no notice where the field is
/// blank.
@Suite(.serialized) struct CameraCopyrightTests {
    @Test func eachCamerasNoticeAsItWroteIt() async throws {
        let (site, _) = try await RealMetadataTests.builtAlone(
            Dictionary(
                uniqueKeysWithValues: [
                    "exiftool-Ricoh.jpg", "nikon-d1x.jpg", "exiftool-FujiFilm.jpg", "olympus-pen-e-p3.jpg",
                ]
                .map { ($0, $0) }),
            config: "base_url: https://example.com/\nimages:\n  widths: [64]")

        let ricoh = try WhatPhotosSayTests.page(site, containing: "<h1>exiftool Ricoh</h1>")
        #expect(ricoh.contains(#"<span class="rights">(C) by Caplio RR1 User</span>"#), "\(ricoh)")
        let nikon = try WhatPhotosSayTests.page(site, containing: "<h1>nikon d1x</h1>")
        // EXIF's `Copyright,` is read before its IPTC notice, as MWG says (docs/photo-metadata.md),
        // and as exiftool's MWG composite shows it.
        #expect(nikon.contains(#"<span class="rights">Copyright,</span>"#))
        for page in [ricoh, nikon] {
            #expect(!page.contains("(Photographer)") && !page.contains("[None]"))
        }
        for title in ["exiftool FujiFilm", "olympus pen e p3"] {
            let page = try WhatPhotosSayTests.page(site, containing: "<h1>\(title)</h1>")
            #expect(!page.contains(#"class="rights""#), "\(title): a blank field is no notice")
            #expect(!page.contains("[None]") && !page.contains("copyrightNotice"), "\(title)")
        }
        let everything = try site.folder.allFiles(under: "public").filter {
            $0.hasSuffix(".html") || $0.hasSuffix(".xml") || $0.hasSuffix(".json")
        }.map { try String(contentsOf: site.folder.file("public/\($0)"), encoding: .utf8) }.joined()
        #expect(!everything.contains("(Photographer)") && !everything.contains("[None]"))
        #expect(everything.contains("(C) by Caplio RR1 User"))
    }
}
