import Foundation

/// One thumbnail file: a photo at one width in one format.
package struct Rendition: Sendable, Hashable, Codable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int
    /// Path relative to the output folder, e.g. `images/0123456789abcdef-480.webp`.
    package var path: String
    package var byteCount: Int64
    /// Lower-case hex SHA-256 of the file: what a build seeded from a published site checks each
    /// thumbnail against. Nil in a record written before it was kept.
    package var sha256: String?

    package init(format: ImageFormat, width: Int, height: Int, path: String, byteCount: Int64, sha256: String? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.path = path
        self.byteCount = byteCount
        self.sha256 = sha256
    }

    /// The file's name: the last component of ``path``.
    package var fileName: String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    package enum CodingKeys: String, CodingKey {
        case format, width, height, path, sha256
        case byteCount = "bytes"
    }
}

/// What to show while a photo loads: its dominant colour and a tiny blurred preview.
package struct Placeholder: Sendable, Hashable, Codable {
    /// `#rrggbb`.
    package var color: String
    /// A `data:image/webp;base64,...` URI of a few hundred bytes.
    package var dataURI: String

    package init(color: String, dataURI: String) {
        self.color = color
        self.dataURI = dataURI
    }

    package enum CodingKeys: String, CodingKey {
        case color
        case dataURI = "data_uri"
    }
}

/// The result of processing one original: its upright size, its renditions and its placeholder.
package struct ProcessedImage: Sendable, Hashable, Codable {
    package var width: Int
    package var height: Int
    /// Sorted by format, then width.
    package var renditions: [Rendition]
    package var placeholder: Placeholder
    /// Some pixel is not fully opaque: the page must not paint a placeholder behind the photo,
    /// where it would show through once the photo has loaded.
    package var hasTransparency: Bool
    /// Read from the original before its metadata was stripped; nil when it recorded nothing.
    package var camera: CameraDetails?
    /// What the original says about itself (XMP, IPTC, EXIF), read with its header; nil for a
    /// set made before gallerygen read it (``PhotoMetadata`` is then read from the original
    /// when the cache has it).
    package var metadata: PhotoMetadata?
    /// Set for a clip: its ``renditions`` are its poster's images and its web videos
    /// (``ImageFormat/isVideo``); its size is the clip's as shown.
    package var video: VideoDetails?
    /// A Live Photo's motion: the web videos of the clip beside the still (its set's ``videos``,
    /// in their order), given to the photo that has it after its set is made. Not part of the set
    /// (a set is the still's bytes, whichever photos show them), so not in its record.
    package var motion: [Rendition] = []

    package init(
        width: Int, height: Int, renditions: [Rendition], placeholder: Placeholder, hasTransparency: Bool = false,
        camera: CameraDetails? = nil, metadata: PhotoMetadata? = nil, video: VideoDetails? = nil
    ) {
        self.width = width
        self.height = height
        self.renditions = renditions
        self.placeholder = placeholder
        self.hasTransparency = hasTransparency
        self.camera = camera
        self.metadata = metadata
        self.video = video
    }

    /// The poster's (or the photo's) images: the renditions a `<picture>` offers.
    package var images: [Rendition] { video == nil ? renditions : renditions.filter { !$0.format.isVideo } }

    /// A clip's web videos, most compact format first, then by height.
    package var videos: [Rendition] {
        guard video != nil else { return [] }
        return renditions.filter(\.format.isVideo).sorted { ($0.format, $0.height) < ($1.format, $1.height) }
    }

    package enum CodingKeys: String, CodingKey {
        case width, height, renditions, placeholder, camera, metadata, video
        case hasTransparency = "transparent"
    }
}
