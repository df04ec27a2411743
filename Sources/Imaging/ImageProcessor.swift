import CVips
package import Foundation
package import GalleryCore

/// The Imaging stage: one original file in, its renditions and placeholder out.
///
/// Each original is decoded once (shrinking on load) to the largest width needed, turned upright by
/// its EXIF orientation, converted to sRGB and kept in memory while every smaller width and every
/// format is made from it; metadata is stripped on save (no GPS leaks) and nothing is upscaled.
/// Calls block their thread on libvips: run them off Swift's cooperative pool (``ImagingPool``).
package struct ImageProcessor: Sendable {
    package struct Configuration: Sendable {
        package var widths: [Int]
        package var formats: [ImageFormat]
        package var quality: Int
        /// Images with more pixels than this are rejected from their header.
        package var maxPixels: Int
        /// libvips' WebP effort, 0-6: the biggest speed lever of a build.
        package var webpEffort: Int
        /// libvips' AVIF effort, 0-9.
        package var avifEffort: Int
        /// libvips worker threads per image.
        package var threadsPerImage: Int

        package init(
            widths: [Int] = [320, 480, 640, 1280, 1920],
            formats: [ImageFormat] = [.webp],
            quality: Int = 75,
            maxPixels: Int = 100_000_000,
            webpEffort: Int = 2,
            avifEffort: Int = 2,
            threadsPerImage: Int = 1
        ) {
            self.widths = widths
            self.formats = formats
            self.quality = quality
            self.maxPixels = maxPixels
            self.webpEffort = webpEffort
            self.avifEffort = avifEffort
            self.threadsPerImage = threadsPerImage
        }
    }

    package let configuration: Configuration
    /// The libvips version: part of every recipe.
    package let libraryVersion: String

    package init(configuration: Configuration) throws(ImagingError) {
        self.configuration = configuration
        self.libraryVersion = try Vips.start()
        gg_vips_configure(Int32(max(1, configuration.threadsPerImage)))
    }

    /// The libvips version, starting libvips if needed.
    package static func libraryVersion() throws(ImagingError) -> String {
        try Vips.start()
    }

    /// Reads only the header of `file`; `name` stands for it in messages.
    package func header(of file: URL, name: String? = nil) throws(ImagingError) -> ImageHeader {
        let name = name ?? file.lastPathComponent
        guard let loader = gg_vips_loader(file.path) else {
            _ = Vips.takeErrorText()
            throw ImagingError(.unsupportedFormat, "\(name) is not an image libvips can read")
        }
        guard let pointer = Vips.serialised({ gg_vips_open_header(file.path) }) else {
            throw ImagingError(.decode, "cannot read the header of \(name): \(Vips.takeErrorText())")
        }
        let image = VipsImageRef(pointer)
        var orientation = Int(gg_vips_orientation(pointer))
        let loaderName = String(cString: loader)
        if loaderName.lowercased().contains("heif"), orientation == 1 {
            var length = 0
            let exif = gg_vips_metadata_blob(pointer, "exif-data", &length).map {
                UnsafeRawBufferPointer(start: $0, count: length)
            }
            orientation = HEIFOrientation.orientation(of: file, exif: exif) ?? 1
        }
        let swapsSides = orientation >= 5
        let (metadata, metadataWarnings) = EmbeddedMetadataReader.metadata(of: image)
        return ImageHeader(
            width: swapsSides ? image.height : image.width,
            height: swapsSides ? image.width : image.height,
            orientation: orientation,
            loader: loaderName,
            camera: CameraDetailsReader.details(of: image),
            metadata: metadata,
            metadataWarnings: metadataWarnings
        )
    }

    /// Makes every rendition of `file` in `directory`, named `<stem>-<width>.<ext>` where the stem
    /// of each format comes from `stems`. Returned paths are bare file names.
    package func process(_ file: URL, stems: [ImageFormat: String], into directory: URL) throws(ImagingError)
        -> ProcessedImage
    {
        try process(file, named: file.lastPathComponent, stems: stems, into: directory).image
    }

    /// ``process(_:stems:into:)``, with `name` standing for the file in every message, and the
    /// warnings libvips gave about this file (and only this file) while it worked on it.
    package func process(_ file: URL, named name: String, stems: [ImageFormat: String], into directory: URL)
        throws(ImagingError) -> (image: ProcessedImage, warnings: [String])
    {
        // What is wrong with the photo's metadata is said once, not once per replay.
        var metadataWarnings: [String] = []
        var processed = try VipsMessages.attributed(file: file, name: name) { () throws(ImagingError) in
            let (image, warnings) = try processOnce(file, name: name, stems: stems, into: directory)
            metadataWarnings = warnings
            return image
        }
        processed.warnings += metadataWarnings
        return processed
    }

    private func processOnce(_ file: URL, name: String, stems: [ImageFormat: String], into directory: URL)
        throws(ImagingError) -> (ProcessedImage, warnings: [String])
    {
        let header = try header(of: file, name: name)
        guard header.pixelCount <= configuration.maxPixels else {
            throw ImagingError(
                .tooManyPixels,
                "\(name) is \(header.width)x\(header.height) (\(header.pixelCount) pixels), over "
                    + "max_pixels (\(configuration.maxPixels)); it was rejected before decoding"
            )
        }
        let widths = Self.outputWidths(configured: configuration.widths, originalWidth: header.width)
        let largest = try decode(
            file, name: name, width: widths.last ?? header.width, orientation: header.orientation)
        var renditions: [Rendition] = []
        var smallest = largest
        for width in widths.reversed() {
            let image =
                width >= largest.width
                ? largest
                : try largest.making(.decode, "resizing \(name)") {
                    gg_vips_thumbnail_image($0, $1, Int32(width))
                }
            for format in configuration.formats.sorted() {
                guard let stem = stems[format] else { continue }
                let name = "\(stem)-\(width).\(format.fileExtension)"
                let size = try save(image, as: format, to: directory.appendingPathComponent(name))
                renditions.append(
                    Rendition(format: format, width: image.width, height: image.height, path: name, byteCount: size)
                )
            }
            smallest = image
        }
        renditions.sort { ($0.format, $0.width) < ($1.format, $1.width) }
        let image = ProcessedImage(
            width: header.width,
            height: header.height,
            renditions: renditions,
            placeholder: try placeholder(from: smallest, name: name),
            hasTransparency: try hasTransparency(largest, name: name),
            camera: header.camera,
            metadata: header.metadata
        )
        return (image, header.metadataWarnings)
    }

    /// Whether some pixel is less than opaque: an alpha band alone is not enough (many PNGs carry
    /// one that is 255 everywhere).
    func hasTransparency(_ image: VipsImageRef, name: String) throws(ImagingError) -> Bool {
        guard image.bands == 4 || image.bands == 2 else { return false }
        var minimum = 0.0
        try Vips.check(.decode, "cannot read the transparency of \(name)") {
            gg_vips_last_band_min(image.pointer, &minimum)
        }
        return minimum < 255
    }

    /// The widths to make: the configured ones below the original's width, plus the original's
    /// own width once when any configured width reaches it (never upscale).
    package static func outputWidths(configured: [Int], originalWidth: Int) -> [Int] {
        var widths = Set(configured.filter { $0 > 0 && $0 < originalWidth })
        if configured.contains(where: { $0 >= originalWidth }) || widths.isEmpty { widths.insert(originalWidth) }
        return widths.sorted()
    }

    /// Decodes once, shrinking on load, upright, in 8-bit sRGB, held in memory. `orientation` is the
    /// file's EXIF orientation (``ImageHeader/orientation``).
    func decode(_ file: URL, name: String? = nil, width: Int, orientation: Int) throws(ImagingError) -> VipsImageRef {
        let name = name ?? file.lastPathComponent
        // Shrunk as stored, in a box turned with the image, and turned after decoding: building
        // libvips' own turn would decode the whole image under Vips.serialised.
        let swapsSides = orientation >= 5
        let box = (
            width: swapsSides ? Int32(VIPS_MAX_COORD) : Int32(width),
            height: swapsSides ? Int32(width) : Int32(VIPS_MAX_COORD)
        )
        var output: UnsafeMutablePointer<VipsImage>?
        try Vips.check(.decode, "cannot decode \(name)") {
            Vips.serialised { gg_vips_thumbnail(file.path, &output, box.width, box.height) }
        }
        guard let output else { throw ImagingError(.decode, "cannot decode \(name)") }
        var image = VipsImageRef(output)
        if gg_vips_has_icc_profile(image.pointer) != 0 {
            image = try image.making(.decode, "cannot convert \(name) to sRGB") { gg_vips_icc_to_srgb($0, $1) }
        }
        // Grey, 16-bit and CMYK images become 8-bit sRGB too.
        image = try image.making(.decode, "cannot convert \(name) to sRGB") { gg_vips_to_srgb($0, $1) }
        // A sequential image can be read once; every width and format reads this one.
        var memory = try image.copiedToMemory(.decode, "cannot decode \(name)")
        if orientation != 1 {
            // What the header found (a HEIF file's turn is its EXIF's alone, which libvips drops).
            gg_vips_set_orientation(memory.pointer, Int32(orientation))
            memory = try memory.making(.decode, "cannot turn \(name) upright") { gg_vips_autorot($0, $1) }
                .copiedToMemory(.decode, "cannot turn \(name) upright")
        }
        // Ours alone: strip it here, so that no rendition (and no GPS position) carries metadata.
        gg_vips_remove_metadata(memory.pointer)
        return memory
    }

    /// Encodes to a temporary file beside `target`, flushes and renames it; returns its size.
    private func save(_ image: VipsImageRef, as format: ImageFormat, to target: URL) throws(ImagingError) -> Int64 {
        let temporary = AtomicFile.temporaryURL(for: target)
        let quality = Int32(configuration.quality)
        do {
            switch format {
            case .webp:
                let bytes = try image.webpData(quality: quality, effort: Int32(configuration.webpEffort))
                try Data(WebPContainer.removingMetadata(from: bytes)).write(to: temporary)
            case .avif:
                try Vips.check(.encode, "cannot encode AVIF") {
                    gg_vips_avifsave(image.pointer, temporary.path, quality, Int32(configuration.avifEffort))
                }
            case .jpeg:
                let opaque =
                    image.bands == 4 || image.bands == 2
                    ? try image.making(.encode, "cannot flatten for JPEG") { gg_vips_flatten_white($0, $1) }
                    : image
                try Vips.check(.encode, "cannot encode JPEG") {
                    gg_vips_jpegsave(opaque.pointer, temporary.path, quality)
                }
            case .webm, .mp4:
                throw ImagingError(.unsupportedFormat, "\(format.rawValue) is a video format, made by ffmpeg")
            }
            try AtomicFile.commit(temporary, to: target)
        } catch let error as ImagingError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError(.write, "cannot write \(target.lastPathComponent)", underlying: error as NSError)
        }
        return FileStatus(target)?.size ?? 0
    }
}
