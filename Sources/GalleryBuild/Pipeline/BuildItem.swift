import GalleryCore
import Loading
import Reporting

/// One photo as it goes through the pipeline: its feed entry, and what each step adds to it in
/// order (its canonical URL when the feed is read, its outcome when it is loaded and made, its
/// download when the downloads are chosen). The steps hand the build's items on as one list in
/// the feed's order (a shard's share of it with `--shard`), never as lists side by side.
struct BuildItem: Sendable {
    /// The feed's entry; its `index` is its place in the feed.
    var photo: Photo
    /// Its canonical URL; nil when it is not loadable.
    var source: CanonicalURL?
    /// What loading and imaging made of it (the load step on).
    var outcome: PhotoOutcome?
    /// What visitors can download of it (the downloads step on; `downloads:`).
    var download: Download?
}

/// What became of one photo.
/// Indirect: a build holds one per photo, and its payload (an original and a thumbnail set, a
/// few hundred bytes) stored inline in a dictionary of 100,000 was 88 MB with the slack.
indirect enum PhotoOutcome: Sendable {
    /// `warnings` are about the photo's loading, named; `imagingWarnings` are libvips' about its
    /// bytes, unnamed (the same for every photo with those bytes).
    case done(
        original: Original, image: ProcessedImage, wasProcessed: Bool, warnings: [String], imagingWarnings: [String])
    case failed(BuildReport.Failure, original: Original?, warnings: [String])

    var image: ProcessedImage? {
        if case .done(_, let image, _, _, _) = self { return image }
        return nil
    }

    var original: Original? {
        switch self {
        case .done(let original, _, _, _, _): original
        case .failed(_, let original, _): original
        }
    }

    var warnings: [String] {
        switch self {
        case .done(_, _, _, let warnings, _), .failed(_, _, let warnings): warnings
        }
    }

    var failureMessage: String? {
        if case .failed(let failure, _, _) = self { return failure.message }
        return nil
    }

    /// Changes the image of a photo that was made (a Live Photo's motion, a clip's time, what an
    /// older cache had not read); a failure stays as it is.
    mutating func changeImage(_ change: (inout ProcessedImage) -> Void) {
        guard case .done(let original, var image, let wasProcessed, let warnings, let imagingWarnings) = self else {
            return
        }
        change(&image)
        self = .done(
            original: original, image: image, wasProcessed: wasProcessed, warnings: warnings,
            imagingWarnings: imagingWarnings)
    }

    /// Adds libvips' words about the photo's bytes, read after it was made.
    mutating func addImagingWarnings(_ more: [String]) {
        guard !more.isEmpty,
            case .done(let original, let image, let wasProcessed, let warnings, let imagingWarnings) = self
        else { return }
        self = .done(
            original: original, image: image, wasProcessed: wasProcessed, warnings: warnings,
            imagingWarnings: imagingWarnings + more)
    }
}
