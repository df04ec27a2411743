import CVips
public import Foundation

/// An RGB test picture built in memory, saved with libvips.
public struct TestImage: Sendable {
    public var width: Int
    public var height: Int
    /// Row-major RGB bytes.
    public var pixels: [UInt8]

    public struct Color: Sendable, Equatable {
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8

        public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        public static let red = Color(230, 20, 20)
        public static let white = Color(250, 250, 250)
        public static let blue = Color(20, 40, 220)

        /// Which of red, blue and white this colour is nearest: robust to lossy encoding, which
        /// shifts saturated colours by tens of levels.
        public var nearestMarker: Color {
            [Color.red, .blue, .white].min { distance(to: $0) < distance(to: $1) } ?? .white
        }

        private func distance(to other: Color) -> Int {
            let deltas = [Int(red) - Int(other.red), Int(green) - Int(other.green), Int(blue) - Int(other.blue)]
            return deltas.map { $0 * $0 }.reduce(0, +)
        }

        /// Roughly this colour, allowing for lossy encoding.
        public func isClose(to other: Color, tolerance: Int = 40) -> Bool {
            abs(Int(red) - Int(other.red)) <= tolerance && abs(Int(green) - Int(other.green)) <= tolerance
                && abs(Int(blue) - Int(other.blue)) <= tolerance
        }
    }

    public init(width: Int, height: Int, fill: Color) {
        self.width = width
        self.height = height
        self.pixels = Array(repeating: 0, count: width * height * 3)
        fillRect(x: 0, y: 0, width: width, height: height, color: fill)
    }

    public mutating func fillRect(x: Int, y: Int, width: Int, height: Int, color: Color) {
        for row in y..<min(self.height, y + height) {
            for column in x..<min(self.width, x + width) {
                let offset = (row * self.width + column) * 3
                pixels[offset] = color.red
                pixels[offset + 1] = color.green
                pixels[offset + 2] = color.blue
            }
        }
    }

    public func color(x: Int, y: Int) -> Color {
        let offset = (y * width + x) * 3
        return Color(pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// An asymmetric picture to check orientation: white, with a red top-left quarter, a blue
    /// bottom-right quarter, wider than tall.
    public static func orientationMarker(width: Int = 120, height: Int = 80) -> TestImage {
        var image = TestImage(width: width, height: height, fill: .white)
        image.fillRect(x: 0, y: 0, width: width / 2, height: height / 2, color: .red)
        image.fillRect(x: width / 2, y: height / 2, width: width - width / 2, height: height - height / 2, color: .blue)
        return image
    }

    /// The picture to store so that a viewer applying EXIF `orientation` shows `self`.
    public func storedForm(forOrientation orientation: Int) -> TestImage {
        // Each case is the inverse of the transform the orientation asks a viewer to apply.
        switch orientation {
        case 2: return mapped(width: width, height: height) { x, y in (width - 1 - x, y) }
        case 3: return mapped(width: width, height: height) { x, y in (width - 1 - x, height - 1 - y) }
        case 4: return mapped(width: width, height: height) { x, y in (x, height - 1 - y) }
        case 5: return mapped(width: height, height: width) { x, y in (y, x) }
        case 6: return mapped(width: height, height: width) { x, y in (width - 1 - y, x) }
        case 7: return mapped(width: height, height: width) { x, y in (width - 1 - y, height - 1 - x) }
        case 8: return mapped(width: height, height: width) { x, y in (y, height - 1 - x) }
        default: return self
        }
    }

    /// A new picture whose pixel (x, y) is this picture's pixel `source(x, y)`.
    private func mapped(width newWidth: Int, height newHeight: Int, source: (Int, Int) -> (Int, Int)) -> TestImage {
        var result = TestImage(width: newWidth, height: newHeight, fill: .white)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                let (sourceX, sourceY) = source(x, y)
                result.fillRect(x: x, y: y, width: 1, height: 1, color: color(x: sourceX, y: sourceY))
            }
        }
        return result
    }

    /// Saves as JPEG, with an EXIF orientation tag when `orientation` is not nil, and the EXIF
    /// fields of `exif` (libvips names: `exif-ifd0-Make` -> `Canon`, `exif-ifd2-FNumber` -> `28/10`).
    public func saveJPEG(to file: URL, orientation: Int? = nil, quality: Int = 92, exif: [String: String] = [:])
        throws
    {
        let image = try vipsImage(for: file)
        defer { gg_g_object_unref(image) }
        if let orientation { vips_image_set_int(image, VIPS_META_ORIENTATION, Int32(orientation)) }
        for (name, value) in exif.sorted(by: { $0.key < $1.key }) { vips_image_set_string(image, name, value) }
        guard gg_vips_jpegsave_keeping_metadata(image, file.path, Int32(quality)) == 0 else {
            throw TestImageError(message: "jpegsave: \(TestImage.takeError())")
        }
    }

    public func savePNG(to file: URL) throws {
        let image = try vipsImage(for: file)
        defer { gg_g_object_unref(image) }
        guard gg_vips_pngsave(image, file.path) == 0 else {
            throw TestImageError(message: "pngsave: \(TestImage.takeError())")
        }
    }

    /// Saves as PNG with an alpha band: `alpha(x, y)` for each pixel.
    public func savePNG(to file: URL, alpha: (Int, Int) -> UInt8) throws {
        TestImage.startVips()
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                rgba += [pixels[offset], pixels[offset + 1], pixels[offset + 2], alpha(x, y)]
            }
        }
        let image = rgba.withUnsafeBytes { buffer in
            vips_image_new_from_memory_copy(
                buffer.baseAddress, buffer.count, Int32(width), Int32(height), 4, VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw TestImageError(message: "cannot make a test image") }
        defer { gg_g_object_unref(image) }
        guard gg_vips_pngsave(image, file.path) == 0 else {
            throw TestImageError(message: "pngsave: \(TestImage.takeError())")
        }
    }

    private func vipsImage(for file: URL) throws -> UnsafeMutablePointer<VipsImage> {
        TestImage.startVips()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let image = pixels.withUnsafeBytes { buffer in
            vips_image_new_from_memory_copy(
                buffer.baseAddress, buffer.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw TestImageError(message: "cannot make a test image") }
        return image
    }

    static func takeError() -> String {
        defer { vips_error_clear() }
        return String(cString: vips_error_buffer())
    }

    static func startVips() {
        _ = started
    }

    private static let started: Void = { _ = gg_vips_init("gallerygen-tests") }()

    /// Decodes an image file (any format libvips reads) into RGB pixels.
    public static func load(_ file: URL) throws -> TestImage {
        startVips()
        guard let opened = gg_vips_open_header(file.path) else {
            throw TestImageError(message: "cannot open \(file.path): \(TestImage.takeError())")
        }
        defer { gg_g_object_unref(opened) }
        guard let memory = vips_image_copy_memory(opened) else {
            throw TestImageError(message: "cannot decode \(file.path)")
        }
        defer { gg_g_object_unref(memory) }
        let width = Int(vips_image_get_width(memory))
        let height = Int(vips_image_get_height(memory))
        let bands = Int(vips_image_get_bands(memory))
        guard let data = vips_image_get_data(memory) else { throw TestImageError(message: "no pixels in \(file.path)") }
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        var image = TestImage(width: width, height: height, fill: .white)
        for index in 0..<(width * height) {
            for channel in 0..<3 {
                image.pixels[index * 3 + channel] = bytes[index * bands + min(channel, bands - 1)]
            }
        }
        return image
    }

    /// Whether an image file carries EXIF, XMP or IPTC metadata.
    public static func hasMetadata(_ file: URL) -> Bool {
        startVips()
        guard let opened = gg_vips_open_header(file.path) else { return false }
        defer { gg_g_object_unref(opened) }
        let fields: [String] = ["exif-data", "xmp-data", "iptc-data"]
        return fields.contains { vips_image_get_typeof(opened, $0) != 0 }
    }

    /// A JPEG whose header claims `width` x `height` but whose data is that of a tiny image:
    /// decoding it would fail, reading its header works. A decompression bomb's header, safely.
    public static func forgedHeaderJPEG(to file: URL, width: Int, height: Int) throws {
        try TestImage(width: 16, height: 16, fill: .red).saveJPEG(to: file)
        var bytes = [UInt8](try Data(contentsOf: file))
        // SOF0..SOF2 marker: FF C0..C2, length(2), precision(1), height(2), width(2).
        guard
            let marker = bytes.indices.dropLast(9).first(where: {
                bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1])
            })
        else { throw TestImageError(message: "no SOF marker in the test JPEG") }
        bytes[marker + 5] = UInt8(height >> 8)
        bytes[marker + 6] = UInt8(height & 0xFF)
        bytes[marker + 7] = UInt8(width >> 8)
        bytes[marker + 8] = UInt8(width & 0xFF)
        try Data(bytes).write(to: file)
    }

    /// A JPEG cut off part way through its data: a corrupt download.
    /// A PNG that decodes, with a tEXt chunk whose CRC is wrong: libpng warns ("tEXt: CRC
    /// error") and libvips passes the warning to GLib's log as a VIPS-WARNING.
    public static func pngWithDamagedTextChunk(to file: URL) throws {
        var image = TestImage(width: 120, height: 90, fill: .white)
        image.fillRect(x: 10, y: 10, width: 30, height: 30, color: .red)
        try image.savePNG(to: file)
        let bytes = try [UInt8](Data(contentsOf: file))
        let afterHeader = 8 + 8 + 13 + 4  // signature, IHDR length and type, IHDR data, its CRC
        let text = Array("Comment\u{0}hello".utf8)
        let length = withUnsafeBytes(of: UInt32(text.count).bigEndian) { Array($0) }
        let chunk = length + Array("tEXt".utf8) + text + [0xDE, 0xAD, 0xBE, 0xEF]
        try Data(bytes.prefix(afterHeader) + chunk + bytes.dropFirst(afterHeader)).write(to: file)
    }

    public static func truncatedJPEG(to file: URL) throws {
        var image = TestImage(width: 200, height: 150, fill: .blue)
        image.fillRect(x: 20, y: 20, width: 80, height: 60, color: .red)
        try image.saveJPEG(to: file)
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(bytes.count / 2).write(to: file)
    }
}

public struct TestImageError: Error, CustomStringConvertible {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
