import GalleryCore
import Loading

/// What the cache already holds for a photo: its original, fresh, and its renditions if made.
/// Boxed: a cold build's list of them is a nil per photo (8 bytes), not room for both (304 bytes,
/// 30 MB at 100,000 photos, held while every photo loads).
final class AvailablePhoto: Sendable {
    let original: Original
    let image: ProcessedImage?

    init(original: Original, image: ProcessedImage?) {
        self.original = original
        self.image = image
    }
}
