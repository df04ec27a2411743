import CVips
import Foundation
import GalleryCore

extension ImageProcessor {
    /// The width of the inline preview: a few hundred bytes that the browser scales up, blurred.
    static let previewWidth = 16

    /// The average colour and a tiny blurred WebP preview, as a data URI.
    func placeholder(from image: VipsImageRef, name: String) throws(ImagingError) -> Placeholder {
        let tiny = try image.making(.encode, "cannot make the placeholder of \(name)") {
            gg_vips_thumbnail_image($0, $1, Int32(Self.previewWidth))
        }
        let blurred = try tiny.making(.encode, "cannot blur the placeholder of \(name)") {
            gg_vips_gaussblur($0, $1, 0.8)
        }
        var means: [Double] = []
        for band in 0..<min(3, tiny.bands) {
            var mean = 0.0
            try Vips.check(.encode, "cannot average the colour of \(name)") {
                gg_vips_band_mean(tiny.pointer, Int32(band), &mean)
            }
            means.append(mean)
        }
        while means.count < 3 { means.append(means.first ?? 0) }
        let color = "#" + means.map { String(format: "%02x", Int(min(255, max(0, $0.rounded())))) }.joined()

        let data = Data(WebPContainer.removingMetadata(from: try blurred.webpData(quality: 30, effort: 4)))
        return Placeholder(color: color, dataURI: "data:image/webp;base64," + data.base64EncodedString())
    }
}
