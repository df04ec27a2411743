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
///
/// Boxed: its fields (about 230 bytes) live in one shared, immutable allocation, so the photos that
/// show one set, and the outcome, gallery item and page that carry a photo's, hold a reference
/// each, not a copy (at 100,000 photos, 45 MB of a cold build's peak). A change makes a new box.
package struct ProcessedImage: Sendable, Hashable, Codable, CustomReflectable {
    /// What a processed image is: the box's contents, and the form it is read and written in.
    package struct Fields: Sendable, Hashable, Codable {
        package var width: Int
        package var height: Int
        package var renditions: [Rendition]
        package var placeholder: Placeholder
        package var hasTransparency: Bool
        package var camera: CameraDetails?
        package var metadata: PhotoMetadata?
        package var video: VideoDetails?
        package var motion: [Rendition] = []

        package enum CodingKeys: String, CodingKey {
            case width, height, renditions, placeholder, camera, metadata, video
            case hasTransparency = "transparent"
        }
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    private var fields: Fields {
        get { box.fields }
        set { box = Box(newValue) }
    }

    package var width: Int {
        get { box.fields.width }
        set { fields.width = newValue }
    }
    package var height: Int {
        get { box.fields.height }
        set { fields.height = newValue }
    }
    /// Sorted by format, then width.
    package var renditions: [Rendition] {
        get { box.fields.renditions }
        set { fields.renditions = newValue }
    }
    package var placeholder: Placeholder {
        get { box.fields.placeholder }
        set { fields.placeholder = newValue }
    }
    /// Some pixel is not fully opaque: the page must not paint a placeholder behind the photo,
    /// where it would show through once the photo has loaded.
    package var hasTransparency: Bool {
        get { box.fields.hasTransparency }
        set { fields.hasTransparency = newValue }
    }
    /// Read from the original before its metadata was stripped; nil when it recorded nothing.
    package var camera: CameraDetails? {
        get { box.fields.camera }
        set { fields.camera = newValue }
    }
    /// What the original says about itself (XMP, IPTC, EXIF), read with its header; nil for a
    /// set made before gallerygen read it (``PhotoMetadata`` is then read from the original
    /// when the cache has it).
    package var metadata: PhotoMetadata? {
        get { box.fields.metadata }
        set { fields.metadata = newValue }
    }
    /// Set for a clip: its ``renditions`` are its poster's images and its web videos
    /// (``ImageFormat/isVideo``); its size is the clip's as shown.
    package var video: VideoDetails? {
        get { box.fields.video }
        set { fields.video = newValue }
    }
    /// A Live Photo's motion: the web videos of the clip beside the still (its set's ``videos``,
    /// in their order), given to the photo that has it after its set is made. Not part of the set
    /// (a set is the still's bytes, whichever photos show them), so not in its record.
    package var motion: [Rendition] {
        get { box.fields.motion }
        set { fields.motion = newValue }
    }

    package init(
        width: Int, height: Int, renditions: [Rendition], placeholder: Placeholder, hasTransparency: Bool = false,
        camera: CameraDetails? = nil, metadata: PhotoMetadata? = nil, video: VideoDetails? = nil
    ) {
        box = Box(
            Fields(
                width: width, height: height, renditions: renditions, placeholder: placeholder,
                hasTransparency: hasTransparency, camera: camera, metadata: metadata, video: video))
    }

    package init(from decoder: any Decoder) throws {
        box = Box(try Fields(from: decoder))
    }

    package func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    package func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }

    /// The fields, as an unboxed value would show them (the page fingerprint's test lists them).
    package var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: box.fields).children, displayStyle: .struct)
    }

    /// The poster's (or the photo's) images: the renditions a `<picture>` offers.
    package var images: [Rendition] { video == nil ? renditions : renditions.filter { !$0.format.isVideo } }

    /// A clip's web videos, most compact format first, then by height.
    package var videos: [Rendition] {
        guard video != nil else { return [] }
        return renditions.filter(\.format.isVideo).sorted { ($0.format, $0.height) < ($1.format, $1.height) }
    }
}
