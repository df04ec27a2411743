import CVips
import Foundation
import GalleryCore
import Metadata

/// Reads what a photo says about itself from the blocks libvips found in its header, field by
/// field as the Metadata Working Group's guidance reconciles them (exiftool's MWG module is the
/// reference): EXIF first where it says the field (the caption, creator, copyright and the time
/// taken), then XMP, then IPTC-IIM; IPTC before XMP only when the digest a tool that kept both in
/// step stored no longer matches the IPTC (a tool that knows no XMP changed it since). The GPS
/// position is read for the build, which shows it only as `location:` allows. Broken blocks are
/// warnings; the fields of the others still count.
enum EmbeddedMetadataReader {
    static func metadata(of image: VipsImageRef) -> (metadata: PhotoMetadata, warnings: [String]) {
        var warnings: [String] = []
        let xmp = blob(image, "xmp-data").map { XMPPacket(bytes: $0) }
        let iptc = blob(image, "iptc-data").map { IPTCBlock(bytes: $0) }
        warnings += xmp?.warnings ?? []
        warnings += iptc?.warnings ?? []
        let exif = exifMetadata(of: image)
        return (
            reconciled(exif: exif, xmp: xmp?.metadata, iptc: iptc?.metadata, iptcChanged: iptc?.digestMatches == false),
            warnings
        )
    }

    /// The fields of the three blocks reconciled as MWG says (see the type's comment). `exif`'s
    /// description is its ImageDescription, or after the others its UserComment.
    static func reconciled(
        exif: (first: PhotoMetadata, last: PhotoMetadata), xmp: PhotoMetadata?, iptc: PhotoMetadata?,
        iptcChanged: Bool
    ) -> PhotoMetadata {
        let (xmp, iptc) = (xmp ?? PhotoMetadata(), iptc ?? PhotoMetadata())
        let blocks = iptcChanged ? iptc.filled(from: xmp) : xmp.filled(from: iptc)
        // EXIF's location comes after XMP's, as before MWG, which says nothing of places.
        var first = exif.first
        first.location = nil
        return first.filled(from: blocks).filled(from: exif.last).bounded()
    }

    private static func blob(_ image: VipsImageRef, _ name: String) -> UnsafeRawBufferPointer? {
        var length = 0
        guard let data = gg_vips_metadata_blob(image.pointer, name, &length), length > 0 else { return nil }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    /// EXIF's fields that come before the other blocks' (ImageDescription, Artist, Copyright,
    /// DateTimeOriginal, and its GPS position, which is put after XMP's), and those that come
    /// after them (UserComment as a caption).
    private static func exifMetadata(of image: VipsImageRef) -> (first: PhotoMetadata, last: PhotoMetadata) {
        func field(_ name: String) -> String? {
            gg_vips_metadata_string(image.pointer, name).flatMap { ExifField(String(cString: $0))?.readable }
                .flatMap(meaningful)
        }
        let copyright = gg_vips_metadata_string(image.pointer, "exif-ifd0-Copyright").flatMap {
            copyrightNotice(String(cString: $0))
        }
        let taken = field("exif-ifd2-DateTimeOriginal").flatMap { date in
            CaptureTime.parse(date, offset: field("exif-ifd2-OffsetTimeOriginal"))
        }
        func raw(_ name: String) -> String? {
            gg_vips_metadata_string(image.pointer, name).flatMap { ExifField(String(cString: $0))?.raw }
        }
        // GPS IFD (ifd3): degrees, minutes, seconds as rationals, and their hemispheres.
        var location: GeoPoint?
        if let latitude = raw("exif-ifd3-GPSLatitude").flatMap({
            GeoPoint.degrees(rationals: $0, reference: raw("exif-ifd3-GPSLatitudeRef"))
        }),
            let longitude = raw("exif-ifd3-GPSLongitude").flatMap({
                GeoPoint.degrees(rationals: $0, reference: raw("exif-ifd3-GPSLongitudeRef"))
            })
        {
            location = GeoPoint(latitude: latitude, longitude: longitude)
        }
        return (
            PhotoMetadata(
                description: field("exif-ifd0-ImageDescription"), taken: taken, creator: field("exif-ifd0-Artist"),
                rights: copyright, location: location),
            PhotoMetadata(description: field("exif-ifd2-UserComment"), location: location)
        )
    }

    /// EXIF's Copyright as libvips gives it: the raw value, then libexif's reading of its two
    /// parts, `RAW (PHOTOGRAPHER (Photographer) - EDITOR (Editor), ASCII, N components, N bytes)`,
    /// where a part that is blank or missing reads `[None]`. Either part may itself hold ` (`,
    /// so the split is where the photographer's reading repeats the raw value. Nil for a blank or
    /// NUL-filled field; `photographer; editor` when both are given.
    static func copyrightNotice(_ text: String) -> String? {
        guard let head = ExifField.head(of: text) else { return nil }
        let editorMark = " (Editor)"
        let photographerMark = " (Photographer) - "
        guard head.hasSuffix(editorMark) else { return nil }
        let body = head.dropLast(editorMark.count)
        var search = body.startIndex..<body.endIndex
        while let separator = body.range(of: " (", range: search) {
            search = separator.upperBound..<body.endIndex
            let raw = body[..<separator.lowerBound]
            let rest = body[separator.upperBound...]
            // libexif shows a photographer of spaces alone (or nothing) as `[None]`.
            let shown = raw.allSatisfy { $0 == " " } ? "[None]" : String(raw)
            guard rest.hasPrefix(shown + photographerMark) else { continue }
            let editor = String(rest.dropFirst(shown.count + photographerMark.count))
            let parts = [shown, editor].filter { $0 != "[None]" }.compactMap(meaningful)
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
        return nil
    }

    /// What cameras write where the photographer wrote nothing.
    static let placeholders: Set<String> = [
        "olympus digital camera", "sony dsc", "kodak digital still camera", "default", "dcim",
        "digital camera", "samsung digital camera", "minolta dsc", "image", "photo", "exif_jpeg_picture",
        "lg digital camera",
    ]

    /// The text, unless it is empty or a camera's stock description.
    static func meaningful(_ text: String) -> String? {
        let trimmed = text.cleanedLine().trimmingWhitespace()
        guard !trimmed.isVisiblyEmpty, !placeholders.contains(trimmed.lowercased()) else { return nil }
        return trimmed
    }
}
