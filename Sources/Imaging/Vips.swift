import CVips
import Foundation
import GalleryCore

/// libvips, started once per process, and the one place its error buffer becomes our error.
enum Vips {
    private static let started: Result<String, ImagingError> = {
        guard gg_vips_init("gallerygen") == 0 else {
            return .failure(ImagingError(.initialisation, "libvips failed to start: \(takeErrorText())"))
        }
        VipsMessages.install()
        return .success(String(cString: vips_version_string()))
    }()

    /// Starts libvips if needed and returns its version string.
    @discardableResult
    static func start() throws(ImagingError) -> String {
        try started.get()
    }

    /// Held while a libvips operation is built and while an image is released.
    ///
    /// libvips compiles an Orc program (run-time generated SIMD code) when it builds some
    /// operations (the `reducev` of every resize, the integer convolution of a blur) and frees it
    /// when the operation goes with its last image. liborc 0.4.33 (Debian 12) keeps its code memory
    /// in a linked list that it splits and merges without a lock, so two threads doing either at
    /// once corrupt the list and crash (seen in gallerygen's tests; `bench/vips-threads.c`
    /// reproduces it in tens of seconds). Building and releasing take microseconds; the decoding,
    /// resampling and encoding, where the time goes, run outside the lock and in parallel.
    /// Turning Orc off instead (`vips_vector_set_enabled`) made the cold build 35% slower.
    private static let programLock = NSLock()

    /// Runs `body`, which builds libvips operations or releases images, holding ``programLock``.
    static func serialised<Result>(_ body: () -> Result) -> Result {
        programLock.lock()
        defer { programLock.unlock() }
        return body()
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
        Vips.serialised { gg_g_object_unref(pointer) }
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }

    /// Builds a libvips operation that makes a new image from this one (its pixels are computed
    /// later, when they are read).
    func making(
        _ code: ImagingError.Code,
        _ context: @autoclosure () -> String,
        _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImagingError) -> VipsImageRef {
        var output: UnsafeMutablePointer<VipsImage>?
        try Vips.check(code, context()) { Vips.serialised { operation(pointer, &output) } }
        guard let output else { throw ImagingError(code, "\(context()): libvips returned no image") }
        return VipsImageRef(output)
    }

    /// Computes this image's pixels into a new image held in memory (outside ``Vips/serialised``:
    /// this is where a pipeline's time goes).
    func copiedToMemory(_ code: ImagingError.Code, _ context: @autoclosure () -> String) throws(ImagingError)
        -> VipsImageRef
    {
        guard let memory = vips_image_copy_memory(pointer) else {
            throw ImagingError(code, "\(context()): \(Vips.takeErrorText())")
        }
        return VipsImageRef(memory)
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
