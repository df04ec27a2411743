import CVips
import Foundation
import GalleryCore

/// Reads ``CameraDetails`` from the EXIF fields libvips found in an image's header. GPS fields
/// are never read.
enum CameraDetailsReader {
    static func details(of image: VipsImageRef) -> CameraDetails? {
        func field(_ name: String) -> ExifField? {
            gg_vips_metadata_string(image.pointer, name).flatMap { ExifField(String(cString: $0)) }
        }
        let make = field("exif-ifd0-Make")?.readable
        let model = field("exif-ifd0-Model")?.readable
        let details = CameraDetails(
            camera: camera(make: make, model: model),
            lens: field("exif-ifd2-LensModel")?.readable,
            focalLength: field("exif-ifd2-FocalLength")?.rational.map { "\(trimmed($0)) mm" },
            aperture: field("exif-ifd2-FNumber")?.rational.map { "ƒ/\(trimmed($0))" },
            exposure: field("exif-ifd2-ExposureTime")?.exposure,
            iso: (field("exif-ifd2-PhotographicSensitivity") ?? field("exif-ifd2-ISOSpeedRatings"))?.readable
                .map { "ISO \($0)" },
            taken: field("exif-ifd2-DateTimeOriginal")?.readable.flatMap(takenDate)
        )
        return details.isEmpty ? nil : details
    }

    /// `Canon` + `Canon EOS R5` reads `Canon EOS R5`; `NIKON CORPORATION` + `NIKON Z 6` reads
    /// `NIKON Z 6`; a model that does not name its make is led by it.
    static func camera(make: String?, model: String?) -> String? {
        guard let model, !model.isEmpty else { return make }
        guard let make, !make.isEmpty else { return model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        return model.lowercased().hasPrefix(brand.lowercased()) ? model : "\(make) \(model)"
    }

    /// `2024:05:01 14:32:10` reads `2024-05-01 14:32`.
    static func takenDate(_ text: String) -> String? {
        let parts = text.split(separator: " ")
        guard parts.count == 2 else { return nil }
        let day = parts[0].split(separator: ":")
        let time = parts[1].split(separator: ":")
        guard day.count == 3, time.count >= 2, day.allSatisfy({ $0.allSatisfy(\.isNumber) }),
            day[0] != "0000"
        else { return nil }
        return "\(day.joined(separator: "-")) \(time[0]):\(time[1])"
    }

    static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// One EXIF field as libvips writes it: `raw (readable, Type, N components, N bytes)`.
struct ExifField {
    var raw: String
    var readable: String?

    /// The text of a libvips EXIF field without libvips' own tail (", Type, N components, N
    /// bytes)"): "raw (readable". Nil for text without that tail.
    static func head(of text: String) -> Substring? {
        guard let tail = text.range(of: #", [A-Za-z]+, \d+ components?, \d+ bytes?\)$"#, options: .regularExpression)
        else { return nil }
        return text[..<tail.lowerBound]
    }

    init?(_ text: String) {
        guard let head = Self.head(of: text).map(String.init) else { return nil }
        // ASCII fields read the same raw and readable: split where the two halves match.
        var split: Range<String.Index>?
        var search = head.startIndex..<head.endIndex
        while let separator = head.range(of: " (", range: search) {
            if head[..<separator.lowerBound] == head[separator.upperBound...] {
                split = separator
                break
            }
            split = separator
            search = separator.upperBound..<head.endIndex
        }
        guard let split else { return nil }
        raw = String(head[..<split.lowerBound]).trimmingCharacters(in: .whitespaces)
        let text = String(head[split.upperBound...]).trimmingCharacters(in: .whitespaces)
        readable = text.isEmpty ? nil : text
    }

    /// The raw value of a rational field, `28/10` -> 2.8.
    var rational: Double? {
        let parts = raw.split(separator: "/")
        guard parts.count == 2, let top = Double(parts[0]), let bottom = Double(parts[1]), bottom > 0 else {
            return nil
        }
        let value = top / bottom
        return value > 0 && value.isFinite ? value : nil
    }

    /// An exposure time: `1/250 s` under a second, `2 s` or `0.5 s` otherwise.
    var exposure: String? {
        guard let seconds = rational else { return nil }
        if seconds >= 1 || seconds.isZero { return "\(CameraDetailsReader.trimmed(seconds)) s" }
        let denominator = (1 / seconds).rounded()
        if abs(1 / denominator - seconds) / seconds < 0.05 { return "1/\(Int(denominator)) s" }
        return "\(CameraDetailsReader.trimmed(seconds)) s"
    }
}
