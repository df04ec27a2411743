import GalleryCore

/// A clip's time taken as most cameras' containers give it: `creation_time`, in UTC. Shown as it
/// is, a clip shot at 20:00 in Oslo read 18:00; so it is put in the zone of the photos beside it.
extension BuildSession {
    /// Puts each clip whose time taken is in UTC (`Z`) in the zone of the nearest photo in its
    /// album whose time says its zone (the one before it first, on a tie). A clip with no such
    /// photo keeps UTC, and its page says so.
    func placeClipTimes(_ context: inout BuildContext) {
        let photos = context.photos
        // Photos' zones only: not another clip's, nor one this step moved.
        func taken(_ photo: Photo) -> CaptureTime? {
            guard context.outcomes[photo.index]?.image?.video == nil else { return nil }
            return photo.metadata.taken ?? context.outcomes[photo.index]?.image?.metadata?.taken
        }
        for (position, photo) in photos.enumerated() {
            guard photo.metadata.taken == nil,
                case .done(let original, var image, let wasProcessed, let warnings, let imagingWarnings) =
                    context.outcomes[photo.index],
                image.video != nil, let time = image.metadata?.taken, time.offset == "Z"
            else { continue }
            var zone: String?
            for distance in 1..<max(2, photos.count) {
                for neighbour in [position - distance, position + distance]
                where photos.indices.contains(neighbour) && photos[neighbour].albumPath == photo.albumPath {
                    if let offset = taken(photos[neighbour])?.offset, offset != "Z" {
                        zone = offset
                        break
                    }
                }
                if zone != nil || (position - distance < 0 && position + distance >= photos.count) { break }
            }
            guard let zone, let moved = time.inZone(zone) else { continue }
            image.metadata?.taken = moved
            context.outcomes[photo.index] = .done(
                original: original, image: image, wasProcessed: wasProcessed, warnings: warnings,
                imagingWarnings: imagingWarnings)
        }
    }
}
