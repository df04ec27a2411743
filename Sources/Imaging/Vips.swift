import CVips
import Foundation
import GalleryCore

/// libvips, started once per process, and the one place its error buffer becomes our error.
enum Vips {
    private static let started: Result<String, ImagingError> = {
        guard gg_vips_init("gallerygen") == 0 else {
            return .failure(ImagingError(.initialisation, "libvips failed to start: \(takeErrorText())"))
        }
        return .success(String(cString: vips_version_string()))
    }()

    /// Starts libvips if needed and returns its version string.
    @discardableResult
    static func start() throws(ImagingError) -> String {
        try started.get()
    }

    /// Reads and clears libvips' error buffer.
    static func takeErrorText() -> String {
        let text = String(cString: vips_error_buffer()).trimmingWhitespace()
        vips_error_clear()
        return text.isEmpty ? "unknown libvips error" : text
    }

    /// Runs a libvips call that returns non-zero on failure, turning the failure into our error.
    static func check(_ code: ImagingError.Code, _ context: @autoclosure () -> String, _ call: () -> Int32)
        throws(ImagingError)
    {
        guard call() == 0 else {
            throw ImagingError(code, "\(context()): \(takeErrorText())")
        }
    }
}

/// Owns one `VipsImage` reference.
///
/// `@unchecked Sendable`: a libvips image is immutable once built and libvips is thread-safe after
/// `vips_init`; the wrapper only moves between tasks, it is never used from two at once.
final class VipsImageRef: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        gg_g_object_unref(pointer)
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }

    /// Runs a libvips operation that makes a new image from this one.
    func making(
        _ code: ImagingError.Code,
        _ context: @autoclosure () -> String,
        _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImagingError) -> VipsImageRef {
        var output: UnsafeMutablePointer<VipsImage>?
        try Vips.check(code, context()) { operation(pointer, &output) }
        guard let output else { throw ImagingError(code, "\(context()): libvips returned no image") }
        return VipsImageRef(output)
    }

    /// Encodes as WebP into memory.
    func webpData(quality: Int32, effort: Int32) throws(ImagingError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try Vips.check(.encode, "cannot encode WebP") {
            gg_vips_webpsave_buffer(pointer, &buffer, &length, quality, effort)
        }
        defer { gg_g_free(buffer) }
        guard let buffer else { throw ImagingError(.encode, "cannot encode WebP: libvips returned no data") }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
