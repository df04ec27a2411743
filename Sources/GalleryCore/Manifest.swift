import Foundation

/// `gallery-manifest.json`: what a build produced, written last so that its presence means a
/// complete site. Sorted and free of times so that two builds of the same inputs are identical.
package struct Manifest: Sendable, Hashable, Codable {
    package static let fileName = "gallery-manifest.json"
    package static let currentVersion = 1

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

    /// Encodes with sorted keys and one value per line, so that the manifest diffs cleanly.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
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

    package enum CodingKeys: String, CodingKey {
        case id, source, sha256, validators, renditions, error
    }
}
