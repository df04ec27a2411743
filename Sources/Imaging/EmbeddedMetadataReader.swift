import CVips
import GalleryCore
import Metadata

/// Reads what a photo says about itself from the blocks libvips found in its header: XMP first
/// (what today's tools write and keep in step), then IPTC-IIM, then EXIF, field by field. The GPS
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
        let merged = (xmp?.metadata ?? PhotoMetadata()).filled(from: iptc?.metadata ?? PhotoMetadata())
            .filled(from: exif)
        return (merged.bounded(), warnings)
    }

    private static func blob(_ image: VipsImageRef, _ name: String) -> UnsafeRawBufferPointer? {
        var length = 0
        guard let data = gg_vips_metadata_blob(image.pointer, name, &length), length > 0 else { return nil }
        return UnsafeRawBufferPointer(start: data, count: length)
    }

    private static func exifMetadata(of image: VipsImageRef) -> PhotoMetadata {
        func field(_ name: String) -> String? {
            gg_vips_metadata_string(image.pointer, name).flatMap { ExifField(String(cString: $0))?.readable }
                .flatMap(meaningful)
        }
        // libexif reads Copyright out as `© Ada (Photographer) - [None] (Editor)`: its own text is
        // the raw value.
        let copyright = gg_vips_metadata_string(image.pointer, "exif-ifd0-Copyright").flatMap {
            ExifField(String(cString: $0))?.raw
        }.flatMap(meaningful)
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
        return PhotoMetadata(
            description: field("exif-ifd0-ImageDescription") ?? field("exif-ifd2-UserComment"), taken: taken,
            creator: field("exif-ifd0-Artist"), rights: copyright, location: location)
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
