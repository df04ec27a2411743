import Foundation
import GalleryCore
import Imaging
import Loading

/// The checks a thumbnail set made elsewhere (a published site, the remote cache tier) passes
/// before a build takes it: a well-formed record, exactly the file names this build would give
/// the set, and each file of its recorded size and hash, sniffing as its format.
enum ThumbnailSetCheck {
    struct Rejection: Error {
        var kind: String
        var detail: String

        init(_ kind: String, _ detail: String) {
            self.kind = kind
            self.detail = detail
        }
    }

    /// The set has exactly the names this build would give it: a set made with other settings
    /// (widths, formats, quality, effort, libvips) has others, and no other name reaches the site.
    ///
    /// A clip's set has its videos' names too, by `video` (this build's recipe and the stems of
    /// the clip's videos, asked for only when the set is a clip's): a set whose videos were made
    /// with another recipe, or a clip's when this build has no ffmpeg, is not taken.
    static func hasExpectedNames(
        _ image: ProcessedImage, stems: [ImageFormat: String], widths: [Int],
        video: () -> (recipe: VideoRecipe, stems: [ImageFormat: String])? = { nil }
    ) -> Bool {
        var expected = expectedNames(stems: stems, widths: widths, originalWidth: image.width)
        if let details = image.video {
            // The length goes into pages: within what `video.max_duration` may ever allow.
            guard let video = video(), details.recipe == video.recipe.fingerprint,
                (0...86_400).contains(details.duration)
            else { return false }
            expected.formUnion(video.recipe.fileNames(stems: video.stems, width: image.width, height: image.height))
        }
        return image.renditions.count == expected.count && Set(image.renditions.map(\.fileName)) == expected
    }

    /// The names this build gives the set of a photo `originalWidth` wide
    /// (`<stem>-<width>.<ext>`): a set made with other settings has others.
    private static func expectedNames(stems: [ImageFormat: String], widths configured: [Int], originalWidth: Int)
        -> Set<
            String
        >
    {
        let widths = ImageProcessor.outputWidths(configured: configured, originalWidth: originalWidth)
        return Set(stems.flatMap { format, stem in widths.map { "\(stem)-\($0).\(format.fileExtension)" } })
    }

    /// The record's size, placeholder and renditions are sane (they go into pages unchecked
    /// otherwise); each rendition's path is its name after `pathPrefix`.
    static func isWellFormed(_ image: ProcessedImage, pathPrefix: String) -> Bool {
        let color = image.placeholder.color
        let uri = image.placeholder.dataURI
        guard (1...1_000_000).contains(image.width), (1...1_000_000).contains(image.height),
            color.count == 7, color.hasPrefix("#"), isLowercaseHex(String(color.dropFirst()), length: 6),
            uri.hasPrefix("data:image/webp;base64,"),
            uri.dropFirst("data:image/webp;base64,".count).allSatisfy({
                $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0))
            })
        else { return false }
        return image.renditions.allSatisfy { rendition in
            rendition.path == pathPrefix + rendition.fileName && !rendition.fileName.contains("..")
                && !rendition.fileName.contains("/") && (1...100_000).contains(rendition.width)
                && (1...100_000).contains(rendition.height) && rendition.byteCount > 0
                && rendition.sha256.map { isLowercaseHex($0, length: 64) } == true
        }
    }

    /// Throws unless `data` is the file `rendition` records.
    static func verify(_ data: Data, as rendition: Rendition, name: String) throws(Rejection) {
        guard Int64(data.count) == rendition.byteCount else {
            throw Rejection("truncated or padded", "\(name): \(data.count) bytes, not \(rendition.byteCount)")
        }
        guard sha256Hex(of: data) == rendition.sha256 else {
            throw Rejection("did not match its recorded hash", name)
        }
        let sniffed = rendition.format.isVideo ? ImageSniffer.videoType(of: data) : ImageSniffer.imageType(of: data)
        guard sniffed == sniffedType(of: rendition.format) else {
            throw Rejection("is not the image its name says", name)
        }
    }

    private static func sniffedType(of format: ImageFormat) -> String {
        switch format {
        case .jpeg: "jpeg"
        case .webp: "webp"
        case .avif: "heif"
        case .mp4: "mp4"
        case .webm: "matroska"
        }
    }
}
