import GalleryCore
import Testing

@testable import Imaging

/// EXIF's Copyright as libvips hands it over (its raw value, then libexif's reading), written by
/// `exiftool -Copyright=…` and read back with `vipsheader -a`, and as cameras fill it.
@Suite struct CopyrightNoticeTests {
    @Test(arguments: [
        // Pentax, Nikon and Ricoh bodies set to a Creative Commons notice.
        (
            "CREATIVECOMMONS ATTRIBUTION CCBY (CREATIVECOMMONS ATTRIBUTION CCBY (Photographer) - [None] (Editor), "
                + "ASCII, 33 components, 33 bytes)", "CREATIVECOMMONS ATTRIBUTION CCBY"
        ),
        (
            "© Ada (CC BY) (© Ada (CC BY) (Photographer) - [None] (Editor), ASCII, 15 components, 15 bytes)",
            "© Ada (CC BY)"
        ),
        // Both parts: the photographer's, then the editor's.
        ("Ada (Ada (Photographer) - Bob (Editor), ASCII, 8 components, 8 bytes)", "Ada; Bob"),
        (" ([None] (Photographer) - Bob (Editor), ASCII, 5 components, 5 bytes)", "Bob"),
    ])
    func theNoticeAsWritten(libvips: String, shown: String) {
        #expect(EmbeddedMetadataReader.copyrightNotice(libvips) == shown)
    }

    /// An Olympus body or a US Army photo with the field left blank, spaces or NULs: no notice.
    @Test(arguments: [
        "     ([None] (Photographer) - [None] (Editor), ASCII, 6 components, 6 bytes)",
        " ([None] (Photographer) - [None] (Editor), ASCII, 32 components, 32 bytes)",
        "([None] (Photographer) - [None] (Editor), ASCII, 1 component, 1 byte)",
        "not libexif's reading at all",
    ])
    func aBlankFieldIsNoNotice(libvips: String) {
        #expect(EmbeddedMetadataReader.copyrightNotice(libvips) == nil)
    }
}

/// The three blocks reconciled as the Metadata Working Group says.
@Suite struct ReconciledMetadataTests {
    static let exif = (
        first: PhotoMetadata(description: "EXIF caption", creator: "EXIF artist"),
        last: PhotoMetadata(description: "EXIF comment")
    )
    static let xmp = PhotoMetadata(title: "XMP title", description: "XMP caption", rights: "XMP rights")
    static let iptc = PhotoMetadata(title: "IPTC title", description: "IPTC caption", rights: "IPTC rights")

    @Test func exifThenXMPThenIPTC() {
        let said = EmbeddedMetadataReader.reconciled(
            exif: Self.exif, xmp: Self.xmp, iptc: Self.iptc, iptcChanged: false)
        #expect(said.description == "EXIF caption" && said.creator == "EXIF artist")
        #expect(said.title == "XMP title" && said.rights == "XMP rights")
    }

    /// IPTC changed since a tool kept XMP in step with it (its digest no longer matches): IPTC's
    /// values are the newer.
    @Test func iptcChangedSinceComesBeforeXMP() {
        let said = EmbeddedMetadataReader.reconciled(exif: Self.exif, xmp: Self.xmp, iptc: Self.iptc, iptcChanged: true)
        #expect(said.title == "IPTC title" && said.rights == "IPTC rights")
        #expect(said.description == "EXIF caption")
    }

    /// EXIF's UserComment is a caption only when no block says one.
    @Test func theUserCommentComesLast() {
        let bare = (first: PhotoMetadata(), last: PhotoMetadata(description: "EXIF comment"))
        #expect(
            EmbeddedMetadataReader.reconciled(exif: bare, xmp: nil, iptc: nil, iptcChanged: false).description
                == "EXIF comment")
        #expect(
            EmbeddedMetadataReader.reconciled(exif: bare, xmp: Self.xmp, iptc: nil, iptcChanged: false).description
                == "XMP caption")
    }
}
