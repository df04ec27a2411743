import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Imaging

@Suite struct ImageProcessorTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("imaging")
    }

    func processor(widths: [Int] = [60, 100], formats: [ImageFormat] = [.webp], maxPixels: Int = 100_000_000) throws
        -> ImageProcessor
    {
        try ImageProcessor(
            configuration: ImageProcessor.Configuration(
                widths: widths, formats: formats, quality: 90, maxPixels: maxPixels)
        )
    }

    @Test("every EXIF orientation gives an upright thumbnail", arguments: 1...8)
    func orientation(_ orientation: Int) throws {
        let upright = TestImage.orientationMarker(width: 120, height: 80)
        let source = folder.file("o\(orientation).jpg")
        try upright.storedForm(forOrientation: orientation).saveJPEG(to: source, orientation: orientation)

        let result = try processor(widths: [60]).process(source, stems: [.webp: "t"], into: folder.url)

        #expect(result.width == 120 && result.height == 80, "upright size from the header")
        let rendition = try #require(result.renditions.first)
        #expect(rendition.width == 60 && rendition.height == 40)
        let thumbnail = try TestImage.load(folder.file(rendition.path))
        #expect(thumbnail.width == 60 && thumbnail.height == 40)
        #expect(thumbnail.color(x: 8, y: 8).nearestMarker == .red, "top-left is red")
        #expect(thumbnail.color(x: 51, y: 31).nearestMarker == .blue, "bottom-right is blue")
        #expect(thumbnail.color(x: 51, y: 8).nearestMarker == .white, "top-right is white")
        #expect(thumbnail.color(x: 8, y: 31).nearestMarker == .white, "bottom-left is white")
    }

    @Test func aDecompressionBombIsRejectedFromItsHeader() throws {
        let bomb = folder.file("bomb.jpg")
        try TestImage.forgedHeaderJPEG(to: bomb, width: 30000, height: 30000)
        let processor = try processor(maxPixels: 100_000_000)

        let header = try processor.header(of: bomb)
        #expect(header.width == 30000 && header.height == 30000)
        // Decoding this file would fail with a decode error (its data is that of a 16x16 image);
        // a tooManyPixels error proves the check came first.
        let error = #expect(throws: ImagingError.self) {
            try processor.process(bomb, stems: [.webp: "b"], into: folder.url)
        }
        #expect(error?.code == .tooManyPixels)
        #expect(error?.message.contains("30000x30000") == true)
        #expect(folder.allFiles().filter { $0.hasPrefix("b-") }.isEmpty, "nothing written")
    }

    @Test func neverUpscales() throws {
        let small = folder.file("small.png")
        try TestImage(width: 300, height: 200, fill: .blue).savePNG(to: small)

        let result = try processor(widths: [100, 480, 960]).process(small, stems: [.webp: "s"], into: folder.url)

        #expect(result.renditions.map(\.width) == [100, 300])
        #expect(result.renditions.map(\.height) == [67, 200])
    }

    @Test func makesEveryWidthInEveryFormatFromOneDecode() throws {
        let source = folder.file("photo.jpg")
        try TestImage.orientationMarker(width: 400, height: 300).saveJPEG(to: source)

        let result = try processor(widths: [100, 200], formats: [.jpeg, .webp, .avif])
            .process(source, stems: [.jpeg: "j", .webp: "w", .avif: "a"], into: folder.url)

        #expect(
            result.renditions.map(\.path) == [
                "a-100.avif", "a-200.avif", "w-100.webp", "w-200.webp", "j-100.jpg", "j-200.jpg",
            ])
        for rendition in result.renditions {
            let file = folder.file(rendition.path)
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
            #expect(size.map(Int64.init) == rendition.byteCount)
            let decoded = try TestImage.load(file)
            #expect(decoded.width == rendition.width)
        }
    }

    @Test func stripsMetadata() throws {
        let source = folder.file("exif.jpg")
        try TestImage.orientationMarker().saveJPEG(to: source, orientation: 1)
        #expect(TestImage.hasMetadata(source), "the source carries EXIF")

        let result = try processor(widths: [60], formats: [.webp, .jpeg]).process(
            source, stems: [.webp: "m", .jpeg: "m"], into: folder.url)

        for rendition in result.renditions {
            #expect(!TestImage.hasMetadata(folder.file(rendition.path)), "\(rendition.path) has no metadata")
        }
    }

    @Test func aCorruptJPEGIsADecodeError() throws {
        let broken = folder.file("broken.jpg")
        try TestImage.truncatedJPEG(to: broken)

        let error = #expect(throws: ImagingError.self) {
            try processor().process(broken, stems: [.webp: "x"], into: folder.url)
        }
        #expect(error?.code == .decode)
        #expect(error?.message.contains("broken.jpg") == true)
        #expect(folder.allFiles().filter { $0.hasPrefix("x-") || $0.hasPrefix(".tmp-") }.isEmpty)
    }

    @Test func notAnImageIsReported() throws {
        let text = try folder.write("<html>not found</html>", to: "page.jpg")
        let error = #expect(throws: ImagingError.self) {
            try processor().process(text, stems: [.webp: "x"], into: folder.url)
        }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func placeholderHasTheImagesColourAndATinyPreview() throws {
        let source = folder.file("blue.png")
        try TestImage(width: 200, height: 100, fill: TestImage.Color(20, 40, 220)).savePNG(to: source)

        let placeholder = try processor().process(source, stems: [.webp: "p"], into: folder.url).placeholder

        #expect(placeholder.color == "#1428dc")
        #expect(placeholder.dataURI.hasPrefix("data:image/webp;base64,"))
        #expect(placeholder.dataURI.count < 1200, "small enough to inline")
    }

    @Test func transparencyIsMeasuredNotGuessedFromTheBands() throws {
        let grey = TestImage(width: 64, height: 64, fill: TestImage.Color(200, 200, 200))
        let clear = folder.file("clear.png")
        try grey.savePNG(to: clear) { x, _ in x < 32 ? 0 : 255 }
        let opaqueAlpha = folder.file("opaque-alpha.png")
        try grey.savePNG(to: opaqueAlpha) { _, _ in 255 }
        let plain = folder.file("plain.png")
        try grey.savePNG(to: plain)

        let make = { (file: URL) throws -> ProcessedImage in
            try self.processor(widths: [32]).process(
                file, stems: [.webp: file.deletingPathExtension().lastPathComponent], into: self.folder.url)
        }
        let transparent = try make(clear)
        #expect(transparent.hasTransparency)
        #expect(try !make(opaqueAlpha).hasTransparency, "an alpha band of 255 everywhere hides nothing")
        #expect(try !make(plain).hasTransparency)
        // The placeholder's colour is of the colour bands: grey, not grey mixed with alpha.
        #expect(transparent.placeholder.color == "#c8c8c8")
    }

    @Test func cameraDetailsAreReadBeforeTheMetadataGoes() throws {
        let source = folder.file("camera.jpg")
        try TestImage(width: 120, height: 80, fill: TestImage.Color(90, 120, 60)).saveJPEG(
            to: source,
            exif: [
                "exif-ifd0-Make": "Canon", "exif-ifd0-Model": "Canon EOS R5", "exif-ifd2-FNumber": "28/10",
                "exif-ifd2-ExposureTime": "1/250", "exif-ifd2-FocalLength": "35/1",
                "exif-ifd2-DateTimeOriginal": "2024:05:01 14:32:10", "exif-ifd3-GPSLatitudeRef": "N",
            ])
        let result = try processor(widths: [60], formats: [.webp, .jpeg]).process(
            source, stems: [.webp: "c", .jpeg: "c"], into: folder.url)

        let camera = try #require(result.camera)
        #expect(camera.camera == "Canon EOS R5")
        #expect(camera.aperture == "ƒ/2.8")
        #expect(camera.exposure == "1/250 s")
        #expect(camera.focalLength == "35 mm")
        #expect(camera.taken == "2024-05-01 14:32")
        for rendition in result.renditions {
            #expect(!TestImage.hasMetadata(folder.file(rendition.path)), "\(rendition.path) has no metadata")
        }
    }

    @Test func exifFieldsAsLibvipsWritesThem() {
        let ascii = ExifField("Canon EOS R5 (Canon EOS R5, ASCII, 13 components, 13 bytes)")
        #expect(ascii?.raw == "Canon EOS R5" && ascii?.readable == "Canon EOS R5")
        let rational = ExifField("28/10 (f/2.8, Rational, 1 components, 8 bytes)")
        #expect(rational?.rational == 2.8 && rational?.readable == "f/2.8")
        #expect(ExifField("1/250 (1/250 sec., Rational, 1 components, 8 bytes)")?.exposure == "1/250 s")
        #expect(ExifField("30/1 (30 sec., Rational, 1 components, 8 bytes)")?.exposure == "30 s")
        #expect(ExifField("0/0 (0/0, Rational, 1 components, 8 bytes)")?.rational == nil)
        #expect(ExifField("no tail at all") == nil)
        #expect(CameraDetailsReader.camera(make: "NIKON CORPORATION", model: "NIKON Z 6") == "NIKON Z 6")
        #expect(CameraDetailsReader.camera(make: "FUJIFILM", model: "X-T4") == "FUJIFILM X-T4")
        #expect(CameraDetailsReader.takenDate("0000:00:00 00:00:00") == nil)
    }

    @Test func transparencyIsFlattenedForJPEG() throws {
        let source = folder.file("grey.png")
        try TestImage(width: 64, height: 64, fill: TestImage.Color(128, 128, 128)).savePNG(to: source)
        let result = try processor(widths: [32], formats: [.jpeg]).process(
            source, stems: [.jpeg: "g"], into: folder.url)
        let decoded = try TestImage.load(folder.file(try #require(result.renditions.first).path))
        #expect(decoded.color(x: 16, y: 16).isClose(to: TestImage.Color(128, 128, 128), tolerance: 6))
    }

    @Test func outputWidthsNeverExceedTheOriginal() {
        #expect(ImageProcessor.outputWidths(configured: [480, 960, 1600], originalWidth: 1200) == [480, 960, 1200])
        #expect(ImageProcessor.outputWidths(configured: [480, 960], originalWidth: 2000) == [480, 960])
        #expect(ImageProcessor.outputWidths(configured: [480, 960], originalWidth: 300) == [300])
        #expect(ImageProcessor.outputWidths(configured: [480, 480, 960], originalWidth: 960) == [480, 960])
    }
}
