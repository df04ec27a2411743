import Foundation
import GalleryCore
import Mustache

/// The values of a photo's own page (`photo-page.mustache`): the photo large, its caption and
/// camera details, its neighbours, the grid page that holds it, and the Open Graph card.
struct PhotoPageViewModel: Sendable, MustacheParent, Encodable {
    /// A link with a label: an album, a neighbour, the grid page.
    struct Link: Sendable, MustacheParent, Encodable {
        var href: String
        var title: String

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            case "title": title
            default: nil
            }
        }
    }

    /// The Open Graph and Twitter card values; only with `base_url` (they must be absolute).
    struct Card: Sendable, MustacheParent, Encodable {
        var url: String
        var image: String
        var imageType: String
        var imageWidth: Int
        var imageHeight: Int

        func child(named name: String) -> Any? {
            switch name {
            case "url": url
            case "image": image
            case "imageType": imageType
            case "imageWidth": imageWidth
            case "imageHeight": imageHeight
            default: nil
            }
        }
    }

    var site: PageViewModel.Site
    var title: String
    var photo: PhotoViewModel
    /// The largest rendition's size: the image's box.
    var width: Int
    var height: Int
    var number: Int
    var count: Int
    var album: Link?
    var previous: Link?
    var next: Link?
    var grid: Link
    var camera: String?
    var card: Card?
    var canonical: String?

    func child(named name: String) -> Any? {
        switch name {
        case "site": site
        case "title": title
        case "photo": photo
        case "image": photo.image
        case "width": width
        case "height": height
        case "number": number
        case "count": count
        case "album": album
        case "previous": previous
        case "next": next
        case "grid": grid
        case "camera": camera
        case "card": card
        case "canonical": canonical
        default: photo.child(named: name)
        }
    }

    /// The share of the viewport the photo may take: style.css's `.photo-view img` limits.
    static let heightShare = 0.85

    /// The photo is as wide as the window unless the window is wider than the photo's shape
    /// allows at ``heightShare`` of its height: then it is that height.
    static func sizes(width: Int, height: Int) -> String {
        let aspect = Double(width) / Double(max(1, height))
        // Height-bound when 100vw / (0.85 * 100vh) > aspect: a viewport aspect over 0.85 * aspect.
        let ratio = Int((aspect * heightShare * 1000).rounded())
        let viewportWidths = Int((aspect * heightShare * 100).rounded())
        return "(min-aspect-ratio: \(ratio)/1000) \(viewportWidths)vh, 100vw"
    }

    /// The rendition that social cards show: the one closest to 1200 pixels wide, JPEG first
    /// (every crawler reads it), else the fallback format.
    static func cardRendition(of image: ProcessedImage) -> Rendition? {
        let format = image.renditions.contains { $0.format == .jpeg } ? .jpeg : PhotoViewModel.fallbackFormat(of: image)
        return image.renditions.filter { $0.format == format }.min {
            (abs($0.width - 1200), -$0.width) < (abs($1.width - 1200), -$1.width)
        }
    }
}
