import Foundation
import GalleryCore

/// A photo's renditions as the site names them (`images/<name>`; the cache's own names differ),
/// made once per thumbnail set: photos that share a set share one copy of it, not a copy each
/// (and not one per page and manifest record that shows them).
struct PublicImages {
    private var made: [String: ProcessedImage] = [:]

    mutating func callAsFunction(_ image: ProcessedImage) -> ProcessedImage {
        // A rendition's file name is its set's hash: one name, one set.
        guard let key = image.renditions.first?.path else { return image }
        if let known = made[key] { return known }
        var named = image
        for index in named.renditions.indices {
            named.renditions[index].path = Self.path(of: named.renditions[index])
        }
        made[key] = named
        return named
    }

    mutating func callAsFunction(_ outcome: PhotoOutcome) -> PhotoOutcome {
        guard case .done(let original, let image, let wasProcessed, let warnings, let imagingWarnings) = outcome
        else { return outcome }
        return .done(
            original: original, image: self(image), wasProcessed: wasProcessed, warnings: warnings,
            imagingWarnings: imagingWarnings)
    }

    /// `images/<file name>`.
    static func path(of rendition: Rendition) -> String {
        "images/" + rendition.fileName
    }
}
