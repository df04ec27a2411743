import GalleryCore

/// A clip's time taken as most cameras' containers give it: `creation_time`, in UTC. Shown as it
/// is, a clip shot at 20:00 in Oslo read 18:00; so it is put in the zone of the photos beside it.
extension BuildSession {
    /// Puts each clip whose time taken is in UTC (`Z`) in the zone of the nearest photo in its
    /// album whose time says its zone (the one before it first, on a tie). A clip with no such
    /// photo keeps UTC, and its page says so.
    func placeClipTimes(_ context: inout BuildContext) {
        // As the step found them: a zone is a photo's, not another clip's, nor one this step moved.
        let items = context.items
        func taken(_ item: BuildItem) -> CaptureTime? {
            guard item.outcome?.image?.video == nil else { return nil }
            return item.photo.metadata.taken ?? item.outcome?.image?.metadata?.taken
        }
        for (position, item) in items.enumerated() {
            guard item.photo.metadata.taken == nil, let image = item.outcome?.image, image.video != nil,
                let time = image.metadata?.taken, time.offset == "Z"
            else { continue }
            var zone: String?
            for distance in 1..<max(2, items.count) {
                for neighbour in [position - distance, position + distance]
                where items.indices.contains(neighbour) && items[neighbour].photo.albumPath == item.photo.albumPath {
                    if let offset = taken(items[neighbour])?.offset, offset != "Z" {
                        zone = offset
                        break
                    }
                }
                if zone != nil || (position - distance < 0 && position + distance >= items.count) { break }
            }
            guard let zone, let moved = time.inZone(zone) else { continue }
            context.items[position].outcome?.changeImage { $0.metadata?.taken = moved }
        }
    }
}
