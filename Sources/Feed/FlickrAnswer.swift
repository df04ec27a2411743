import Foundation
import GalleryCore
import GalleryJSON

/// An answer of Flickr's REST API whose body is a page of `<photo>` elements
/// (`flickr.photosets.getPhotos`, `flickr.people.getPublicPhotos`, `flickr.photos.search`,
/// `flickr.galleries.getPhotos`, `flickr.favorites.getPublicList`), read as list-shape entries
/// (docs/feeds.md, "Flickr"): the photo at the smallest size Flickr offers that is as wide as the
/// site's largest rendition (else its largest, the original included), its title, description,
/// tags, when it was taken and uploaded, its owner and licence, and a link back to its page on
/// Flickr. Clips (`media="video"`) are passed over: the answer holds only their stills. The
/// next page is this page's address with `page` one more, until `page` reaches `pages`.
struct FlickrAnswer {
    /// The extras asked for when the feed's address names none: every field read here.
    static let extras = [
        "description", "license", "date_upload", "date_taken", "owner_name", "tags", "media", "path_alias",
        "url_m", "url_z", "url_c", "url_l", "url_h", "url_k", "url_3k", "url_4k", "url_5k", "url_6k", "url_o",
    ].joined(separator: ",")

    /// Flickr's licences by number, as `flickr.photos.licenses.getInfo` answers (0 is "All Rights
    /// Reserved", which has no page).
    static let licences: [String: String] = [
        "1": "https://creativecommons.org/licenses/by-nc-sa/2.0/",
        "2": "https://creativecommons.org/licenses/by-nc/2.0/",
        "3": "https://creativecommons.org/licenses/by-nc-nd/2.0/",
        "4": "https://creativecommons.org/licenses/by/2.0/",
        "5": "https://creativecommons.org/licenses/by-sa/2.0/",
        "6": "https://creativecommons.org/licenses/by-nd/2.0/",
        "7": "https://www.flickr.com/commons/usage/",
        "8": "http://www.usa.gov/copyright.shtml",
        "9": "https://creativecommons.org/publicdomain/zero/1.0/",
        "10": "https://creativecommons.org/publicdomain/mark/1.0/",
    ]

    /// The sizes an answer may carry, by the suffix of their `url_`, `width_` and `height_`.
    private static let sizes = ["m", "n", "w", "z", "c", "l", "h", "k", "3k", "4k", "f", "5k", "6k", "o"]

    var entries: [JSONValue] = []
    /// The album's title (a photo set's).
    var title: String?
    var next: URL?
    /// Clips, and photos without an address of any size.
    var passedOver = 0

    static func isAnswer(_ root: MediaFeed.Element) -> Bool {
        root.name == "rsp" && root.namespace.isEmpty && root["stat"] != nil
    }

    /// Flickr's API address (`https://api.flickr.com/services/rest/?method=…`).
    static func isAPI(_ url: URL) -> Bool {
        url.host?.lowercased() == "api.flickr.com" && url.path.hasPrefix("/services/rest")
    }

    /// The first page's address: the extras this reader uses asked for when the address names
    /// none, as many photos a page as Flickr gives (500), and Flickr's XML answer (the one
    /// read here) rather than JSON.
    static func firstPage(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        let pairs = (components.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
        func name(_ pair: String) -> String {
            let key = String(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            return key.removingPercentEncoding ?? key
        }
        let kept = pairs.filter { !["format", "nojsoncallback"].contains(name($0)) }
        components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        var first = components.url ?? url
        let names = Set(kept.map(name))
        if !names.contains("extras") { first = FeedPages.url(first, setting: "extras", to: extras) }
        if !names.contains("per_page") { first = FeedPages.url(first, setting: "per_page", to: "500") }
        return first
    }

    init(root: MediaFeed.Element, location: URL, name: String, largestWidth: Int) throws(FeedError) {
        guard root["stat"] == "ok" else {
            let error = root.child("", "err")
            let message = error?["msg"] ?? root["stat"] ?? ""
            let code = error?["code"].map { " (code \($0))" } ?? ""
            throw FeedError(.wrongShape, "\(name): Flickr answered \"\(message.prefix(200))\"\(code)")
        }
        guard
            let list = root.children.first(where: { !$0.children(root.namespace, "photo").isEmpty })
                ?? root.children.first
        else {
            throw FeedError(.wrongShape, "\(name): a Flickr answer with no page of photos in it")
        }
        title = list["title"].flatMap { $0.isEmpty ? nil : $0 }
        for photo in list.children(root.namespace, "photo") {
            guard photo["media"] != "video", let entry = Self.entry(photo, in: list, largestWidth: largestWidth) else {
                passedOver += 1
                continue
            }
            entries.append(entry)
        }
        if let page = list["page"].flatMap({ Int($0) }), let pages = list["pages"].flatMap({ Int($0) }), page < pages,
            page < Int.max
        {
            next = FeedPages.url(location, setting: "page", to: String(page + 1))
        }
    }

    private static func entry(_ photo: MediaFeed.Element, in list: MediaFeed.Element, largestWidth: Int) -> JSONValue? {
        let offered = sizes.compactMap { size -> (url: String, width: Int)? in
            guard let url = photo["url_\(size)"], !url.isEmpty else { return nil }
            return (url, photo["width_\(size)"].flatMap { Int($0) } ?? 0)
        }
        guard let image = offered.first(where: { $0.width >= largestWidth }) ?? offered.max(by: { $0.width < $1.width })
        else { return nil }
        var fields: [String: JSONValue] = [:]
        func set(_ key: String, _ value: String?) {
            if let value = value?.trimmingWhitespace(), !value.isEmpty { fields[key] = .string(value) }
        }
        set("imageUrl", image.url)
        set("id", photo["id"])
        set("title", photo["title"])
        set("description", photo.child("", "description").map(\.plainText))
        // `2010-08-28 13:08:01`, the camera's local time; only when Flickr knows it to the second
        // (granularity 0), not a month, a year or "circa".
        if photo["datetakenunknown"] != "1", photo["datetakengranularity"].map({ $0 == "0" }) ?? true,
            let taken = photo["datetaken"], taken.count == 19
        {
            set("taken", taken.replacingOccurrences(of: " ", with: "T"))
        }
        if let uploaded = photo["dateupload"].flatMap({ Int($0) }), uploaded >= 0, uploaded < 253_402_300_800 {
            set("date", CivilDate.rfc3339(secondsSince1970: uploaded))
        }
        let tags = (photo["tags"] ?? "").split(separator: " ").map { JSONValue.string(String($0)) }
        if !tags.isEmpty { fields["keywords"] = .array(tags) }
        set("creator", photo["realname"].flatMap { $0.isEmpty ? nil : $0 } ?? photo["ownername"] ?? list["ownername"])
        set("licence", photo["license"].flatMap { licences[$0] })
        // The photo's page on Flickr, as its terms ask: by the owner's alias, else their id.
        let owner = photo["pathalias"].flatMap { $0.isEmpty ? nil : $0 } ?? photo["owner"] ?? list["owner"]
        if let owner, let id = photo["id"], owner.allSatisfy(Self.isPathCharacter), id.allSatisfy(\.isNumber) {
            set("link", "https://www.flickr.com/photos/\(owner)/\(id)/")
        }
        return .object(fields)
    }

    /// What a Flickr user id (`91178292@N00`) or alias is made of.
    private static func isPathCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "@_-".contains(character))
    }
}
