import GalleryCore
import Mustache

/// A clip's values, for its tile (the play mark and its length), the viewer (`data-video`) and its
/// page (`<video>` with a source per file): every address relative to the page that shows it.
struct ClipViewModel: Sendable, MustacheParent, Encodable {
    struct Source: Sendable, MustacheParent, Encodable {
        var src: String
        var type: String
        var width: Int
        var height: Int
        /// On a clip's page, the windows this file is for (`(min-width: 1280px)`): the largest
        /// that fits is the first that matches; nil for a format's smallest, which every window takes.
        var media: String?

        func child(named name: String) -> Any? {
            switch name {
            case "src": src
            case "type": type
            case "width": width
            case "height": height
            case "media": media
            default: nil
            }
        }
    }

    /// Most compact format first, then the smallest height first.
    var sources: [Source]
    /// `0:07`, `12:04`, `1:02:03`.
    var duration: String
    /// `PT7S`, for `<time datetime>` and structured data.
    var durationISO: String
    /// What the viewer reads from the tile's `data-video` (``viewerList(_:prefix:)``).
    var viewerList: String

    /// `nil` for a photo.
    init?(image: ProcessedImage, prefix: String) {
        guard let video = image.video, !image.videos.isEmpty else { return nil }
        sources = image.videos.map { file in
            Source(src: prefix + file.path, type: file.format.mimeType, width: file.width, height: file.height)
        }
        let seconds = Self.seconds(video.duration)
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        duration = hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
        durationISO = "PT\(seconds)S"
        viewerList = Self.viewerList(image.videos, prefix: prefix) ?? ""
    }

    /// Whole seconds of a length, never trapping on a value no clip has (a day at most: the
    /// longest `video.max_duration`).
    static func seconds(_ duration: Double) -> Int {
        duration.isFinite ? Int(min(86_400, max(0, duration)).rounded()) : 0
    }

    /// What the viewer reads from a tile's `data-video` (a clip's videos) or `data-motion` (a Live
    /// Photo's, ``ProcessedImage/motion``): `address type height` per file, comma separated
    /// (addresses are content names: no space, no comma), in ``ProcessedImage/videos``' order;
    /// nil for none.
    static func viewerList(_ files: [Rendition], prefix: String) -> String? {
        guard !files.isEmpty else { return nil }
        return files.map { "\(prefix)\($0.path) \($0.format.mimeType) \(min($0.width, $0.height))" }
            .joined(separator: ", ")
    }

    /// The MP4 every browser plays: the largest, for a page's fallback link and `og:video`.
    var largestMP4: Source? {
        sources.filter { $0.type == ImageFormat.mp4.mimeType }.max { $0.height * $0.width < $1.height * $1.width }
    }

    /// A `<video>`'s sources on the clip's page: each format in turn (the most compact first), its
    /// files largest first, each but the smallest for windows at least as wide as it is (a browser
    /// plays the first source that it can and whose media matches).
    var pageSources: [Source] {
        var ordered: [Source] = []
        var formats: [String] = []
        for source in sources where !formats.contains(source.type) { formats.append(source.type) }
        for type in formats {
            let files = sources.filter { $0.type == type }.sorted { $0.width * $0.height > $1.width * $1.height }
            for (offset, file) in files.enumerated() {
                var file = file
                if offset < files.count - 1 { file.media = "(min-width: \(file.width)px)" }
                ordered.append(file)
            }
        }
        return ordered
    }

    func child(named name: String) -> Any? {
        switch name {
        case "sources": sources
        case "pageSources": pageSources
        case "duration": duration
        case "durationISO": durationISO
        case "viewerList": viewerList
        case "largest": largestMP4
        // The largest video's size: the `<video>` element's box.
        case "width": sources.map(\.width).max() ?? 0
        case "height": sources.max { $0.width < $1.width }?.height ?? 0
        default: nil
        }
    }
}
