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
        if tiny.bands == 4 || tiny.bands == 2 {
            // With transparency, the colour is of what shows: each pixel weighs its alpha (a
            // grey image with alpha has two bands, grey then alpha).
            means = try Self.visibleColour(of: tiny, name: name)
        } else {
            for band in 0..<min(3, tiny.bands) {
                var mean = 0.0
                try Vips.check(.encode, "cannot average the colour of \(name)") {
                    gg_vips_band_mean(tiny.pointer, Int32(band), &mean)
                }
                means.append(mean)
            }
        }
        while means.count < 3 { means.append(means.first ?? 0) }
        let color = "#" + means.map { String(format: "%02x", Int(min(255, max(0, $0.rounded())))) }.joined()

        let data = Data(WebPContainer.removingMetadata(from: try blurred.webpData(quality: 30, effort: 4)))
        return Placeholder(color: color, dataURI: "data:image/webp;base64," + data.base64EncodedString())
    }

    /// The colour bands' means, each pixel weighted by its alpha (8-bit bands, alpha last).
    static func visibleColour(of image: VipsImageRef, name: String) throws(ImagingError) -> [Double] {
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
            throw ImagingError(.encode, "cannot average the colour of \(name): \(Vips.takeErrorText())")
        }
        defer { gg_g_free(memory) }
        let bands = image.bands
        let bytes = UnsafeRawBufferPointer(start: memory, count: size).bindMemory(to: UInt8.self)
        var sums = [Double](repeating: 0, count: bands - 1)
        var weight = 0.0
        for pixel in stride(from: 0, to: bytes.count - bands + 1, by: bands) {
            let alpha = Double(bytes[pixel + bands - 1])
            weight += alpha
            for band in 0..<(bands - 1) { sums[band] += Double(bytes[pixel + band]) * alpha }
        }
        guard weight > 0 else { return [255, 255, 255] }
        return sums.map { $0 / weight }
    }
}
