import Foundation
import GalleryCore
import Synchronization
import TestSupport
import Testing

@testable import Imaging

/// libvips' Orc programs are compiled when an operation is built and freed when its image goes;
/// liborc 0.4.33 does either unsafely from two threads at once (see `Vips.serialised`).
@Suite struct VipsTests {
    @Test func anImageIsReleasedOnlyUnderTheProgramLock() throws {
        let folder = try TemporaryDirectory("imaging-lock")
        let source = folder.file("a.jpg")
        try TestImage.orientationMarker(width: 64, height: 48).saveJPEG(to: source)
        let processor = try ImageProcessor(configuration: ImageProcessor.Configuration(widths: [32]))
        let holder = ImageHolder(try processor.decode(source, width: 32, orientation: 1))

        let starting = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        Vips.serialised {
            Thread.detachNewThread {
                starting.signal()
                holder.release()  // the last reference goes here, on another thread
                order.update { $0?.append("released") }
                released.signal()
            }
            starting.wait()
            // Unguarded, the release takes microseconds; give it a second to show.
            for _ in 0..<100 where order.value?.isEmpty == true { Thread.sleep(forTimeInterval: 0.01) }
            order.update { $0?.append("lock left") }
        }
        released.wait()
        #expect(order.value == ["lock left", "released"], "the release waited for the lock")
    }

    @Test func manyThreadsAtOnceMakeWhatOneThreadMakes() throws {
        let folder = try TemporaryDirectory("imaging-threads")
        // Every EXIF orientation: a turned photo takes another path through libvips.
        let sources = try (1...8).map { orientation in
            let file = folder.file("s\(orientation).jpg")
            try TestImage.orientationMarker(width: 320 + 16 * orientation, height: 240)
                .storedForm(forOrientation: orientation).saveJPEG(to: file, orientation: orientation)
            return file
        }
        let processor = try ImageProcessor(
            configuration: ImageProcessor.Configuration(widths: [50, 130], formats: [.webp, .jpeg]))
        @Sendable func run(_ job: Int) throws -> ProcessedImage {
            let output = folder.url.appendingPathComponent("out\(job)")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            return try processor.process(
                sources[job % sources.count], stems: [.webp: "t", .jpeg: "t"], into: output)
        }
        let jobs = 96
        let results = Locked<[Int: Result<ProcessedImage, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: jobs) { job in
            let result = Result { try run(job) }
            results.update { $0?[job] = result }
        }
        let alone = try (0..<sources.count).map { try run(jobs + $0) }
        for job in 0..<jobs {
            let result = try #require(results.value?[job]).get()
            #expect(result == alone[job % sources.count], "job \(job)")
            for rendition in result.renditions {
                let made = try Data(contentsOf: folder.url.appendingPathComponent("out\(job)/\(rendition.path)"))
                let single = try Data(
                    contentsOf: folder.url.appendingPathComponent("out\(jobs + job % sources.count)/\(rendition.path)"))
                #expect(made == single, "job \(job): \(rendition.path) is byte-identical")
            }
        }
    }
}

/// Holds an image so that a test can let it go on a thread of its choosing.
private final class ImageHolder: Sendable {
    private let image: Mutex<VipsImageRef?>
    init(_ image: VipsImageRef) { self.image = Mutex(image) }
    func release() { image.withLock { $0 = nil } }
}
