package import Foundation

/// `gallery-manifest.json`: what a build produced, written last so that its presence means a
/// complete site. Sorted and free of times so that two builds of the same inputs are identical.
package struct Manifest: Sendable, Hashable, Codable {
    package static let fileName = "gallery-manifest.json"
    /// 2 added what a seeded build needs to reuse a photo's thumbnails without its original:
    /// each rendition's hash, the photo's size, placeholder and transparency. Version 1 is read too.
    package static let currentVersion = 2

    package var version: Int
    /// One record per photo, in feed order.
    package var photos: [ManifestPhoto]
    /// Every file of the output this build wrote, sorted; the next build removes those it no
    /// longer produces (and never touches a file not listed here).
    package var files: [String]

    package init(version: Int = Manifest.currentVersion, photos: [ManifestPhoto], files: [String]) {
        self.version = version
        self.photos = photos
        self.files = files
    }

    /// Encodes with sorted keys, one file and one photo per line, so that the manifest diffs
    /// cleanly; a record at a time, so that a manifest of 100,000 photos is never a tree in
    /// memory (JSONEncoder's of the whole document took 240 MB more than the result).
    package func encoded() async throws -> Data {
        var data = Data()
        let sink: ([UInt8]) -> Void = { data.append(contentsOf: $0) }
        try await Self.encode(files: files, photos: photos, version: version, record: { $0 }, into: sink)
        return data
    }

    /// The bytes ``encoded()`` makes for `files` and a record per element of `photos`, handed to
    /// `sink` a few megabytes at a time: a build of 100,000 photos compares and writes its
    /// manifest without holding the records, or the document (85 MB), or the file in place.
    /// The records of each part are made and encoded on every core.
    package static func encode<Element: Sendable>(
        files: [String], photos: [Element], version: Int = currentVersion,
        record: @escaping @Sendable (Element) -> ManifestPhoto, into sink: ([UInt8]) throws -> Void
    ) async throws {
        var head = Array("{\"files\":[".utf8)
        RecordLines.appendLines(files, to: &head)
        head += Array(",\n\"photos\":[".utf8)
        try sink(head)
        try await RecordLines.encodeElements(count: photos.count, minimumPart: 256, into: sink) { offset, bytes in
            record(photos[offset]).appendJSON(to: &bytes)
        }
        try sink(Array("\n],\n\"version\":\(version)}\n".utf8))
    }

    package enum CodingKeys: String, CodingKey {
        case version, photos, files
    }
}

/// One photo of the manifest.
package struct ManifestPhoto: Sendable, Hashable, Codable {
    package var id: String
    package var source: String
    /// SHA-256 of the original's bytes; nil when the photo failed.
    package var sha256: String?
    package var validators: Validators?
    package var renditions: [Rendition]
    /// Why the photo is a placeholder tile, when it is one.
    package var error: String?
    /// The upright size of the original; nil when the photo failed (and in version 1).
    package var width: Int?
    package var height: Int?
    package var placeholder: Placeholder?
    package var hasTransparency: Bool?
    /// Only when the site shows camera details (`exif: true`): a manifest is published with the
    /// site, and must not say more than its pages do.
    package var camera: CameraDetails?
    /// What the original says about itself, as far as the pages show it.
    package var metadata: PhotoMetadata?
    /// A clip's length, sound and video recipe: its videos are among ``renditions``.
    package var video: VideoDetails?
    /// The site's HMAC of the rest of the record, when the site has a signing key: a seeded build
    /// with the key takes only records its own builds signed.
    package var mac: String?

    package init(
        id: String,
        source: String,
        sha256: String?,
        validators: Validators?,
        renditions: [Rendition],
        error: String? = nil
    ) {
        self.id = id
        self.source = source
        self.sha256 = sha256
        self.validators = validators
        self.renditions = renditions
        self.error = error
    }

    /// The thumbnail set this record describes, when it describes a whole one: a size, a
    /// placeholder, and a hash for every rendition. Paths stay as published (`images/<name>`).
    package var image: ProcessedImage? {
        guard let width, let height, let placeholder, let hasTransparency, !renditions.isEmpty,
            renditions.allSatisfy({ $0.sha256 != nil })
        else { return nil }
        return ProcessedImage(
            width: width, height: height, renditions: renditions, placeholder: placeholder,
            hasTransparency: hasTransparency, camera: camera, metadata: metadata, video: video)
    }

    package enum CodingKeys: String, CodingKey {
        case id, source, sha256, validators, renditions, error, width, height, placeholder, camera, metadata, mac
        case video
        case hasTransparency = "transparent"
    }
}
