import GalleryCore
import GalleryJSON

/// A known feed layout: where the entries are and which fields hold what.
enum FeedShape: Equatable {
    case jsonPlaceholder
    case iTunes(largestWidth: Int)
    case jsonFeed
    case list
    case mapped(FieldMapping)

    var name: String {
        switch self {
        case .jsonPlaceholder: "JSONPlaceholder"
        case .iTunes: "iTunes Search"
        case .jsonFeed: "JSON Feed"
        case .list: "list"
        case .mapped: "mapped (feed.fields)"
        }
    }

    /// ` / ` in an album's name names an album inside another (`Garden / Flowers`): in the
    /// shapes whose albums the site's owner writes, not in an iTunes collection's name.
    var namesNestedAlbums: Bool {
        switch self {
        case .list, .mapped: true
        case .jsonPlaceholder, .iTunes, .jsonFeed: false
        }
    }

    var itemsPath: String {
        switch self {
        case .jsonPlaceholder, .list: ""
        case .iTunes: "results"
        case .jsonFeed: "items"
        case .mapped(let fields): fields.items
        }
    }

    /// Recognises a shape by its tell-tale fields.
    static func detect(_ root: JSONValue, largestWidth: Int) -> FeedShape? {
        if case .object = root {
            if let version = root["version"]?.text, version.hasPrefix("https://jsonfeed.org/version/") {
                return .jsonFeed
            }
            if root["results"]?.arrayValue != nil { return .iTunes(largestWidth: largestWidth) }
            return nil
        }
        guard let items = root.arrayValue else { return nil }
        // An empty list is a valid, empty feed of any shape.
        guard let sample = items.first(where: \.isObject) else { return items.isEmpty ? .list : nil }
        if sample["imageUrl"] != nil { return .list }
        if sample["url"] != nil, sample["thumbnailUrl"] != nil || sample["albumId"] != nil { return .jsonPlaceholder }
        return nil
    }
}
