import Foundation
import GalleryCore
import GalleryJSON

/// An answer of Flickr's REST API whose body is a page of `<photo>` elements
/// (`flickr.photosets.getPhotos`, `flickr.people.getPublicPhotos`, `flickr.photos.search`,
/// `flickr.galleries.getPhotos`, `flickr.favorites.getPublicList`), read as list-shape entries
/// (docs/feeds.md, "Photo services' APIs"): the photo at the smallest size Flickr offers that is
/// as wide as the site's largest rendition (else its largest, the original included), its title,
/// description, tags, when it was taken and uploaded, its owner and licence, and a link back to
/// its page on Flickr. Clips (`media="video"`) are passed over: the answer holds only their
/// stills. The next page is this page's address with `page` one more, until `page` reaches
/// `pages`.
struct FlickrAnswer {
    /// The extras every first page asks for (with any the feed's address names): every field read
    /// here.
    static let extras = [
        "description", "license", "date_upload", "date_taken", "owner_name", "realname", "tags", "media",
        "path_alias", "url_m", "url_z", "url_c", "url_l", "url_h", "url_k", "url_3k", "url_4k", "url_5k", "url_6k",
        "url_o",
    ]

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

    /// The sizes an answer may carry, by the suffix of their `url_`, `width_` and `height_`, from
    /// the smallest.
    private static let sizes = ["n", "w", "m", "z", "c", "l", "h", "k", "3k", "4k", "f", "5k", "6k", "o"]

    var entries: [JSONValue] = []
    /// The album's title (a photo set's).
    var title: String?
    var next: URL?
    /// Clips: the answer holds only their stills.
    var passedOver = 0

    static func isAnswer(_ root: MediaFeed.Element) -> Bool {
        root.name == "rsp" && root.namespace.isEmpty && root["stat"] != nil
    }

    /// An answer read as Flickr's without being told: from Flickr's API address, or holding a
    /// page of `<photo>`s (other services answer `<rsp>` too: Piwigo's XML).
    static func isRecognised(_ root: MediaFeed.Element, location: URL) -> Bool {
        isAnswer(root) && (isAPI(location) || root.children.contains { !$0.children(root.namespace, "photo").isEmpty })
    }

    /// Flickr's API address (`https://api.flickr.com/services/rest/?method=…`).
    static func isAPI(_ url: URL) -> Bool {
        url.host?.lowercased() == "api.flickr.com" && url.path.hasPrefix("/services/rest")
    }

    /// The first page's address: the extras this reader uses added to any the address names, as
    /// many photos a page as Flickr gives (500) unless it says, and Flickr's XML answer (the one
    /// read here) rather than JSON.
    static func firstPage(_ url: URL) -> URL {
        var first = FeedPages.url(url, removing: ["format", "nojsoncallback"])
        let given = (FeedPages.queryValue("extras", in: first) ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let wanted = given + extras.filter { !given.contains($0) }
        if wanted != given { first = FeedPages.url(first, setting: "extras", to: wanted.joined(separator: ",")) }
        if FeedPages.queryValue("per_page", in: first) == nil {
            first = FeedPages.url(first, setting: "per_page", to: "500")
        }
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
        guard list.name == "photos" || list.name == "photoset" || !list.children(root.namespace, "photo").isEmpty
        else {
            throw FeedError(
                .wrongShape, "\(name): Flickr answered with <\(list.name.prefix(50))>, not a page of photos")
        }
        title = list["title"].flatMap { $0.isEmpty ? nil : $0 }
        for photo in list.children(root.namespace, "photo") {
            if photo["media"] == "video" {
                passedOver += 1
                continue
            }
            // One with no size at all stays an entry without an image, reported by its position.
            entries.append(Self.entry(photo, in: list, largestWidth: largestWidth))
        }
        // The page asked for (1 when the address names none); a server that answers another one
        // (Flickr stops a search at its 4,000th photo) ends the feed rather than repeating it.
        let asked = FeedPages.queryValue("page", in: location).flatMap { Int($0) } ?? 1
        if let page = list["page"].flatMap({ Int($0) }), let pages = list["pages"].flatMap({ Int($0) }),
            page == asked, page < pages
        {
            next = FeedPages.url(location, setting: "page", to: String(page + 1))
        }
    }

    private static func entry(_ photo: MediaFeed.Element, in list: MediaFeed.Element, largestWidth: Int) -> JSONValue {
        // By width (a size without one counts as the size its name says it is: its place in `sizes`).
        let offered = sizes.enumerated().compactMap { rank, size -> (url: String, width: Int, rank: Int)? in
            guard let url = photo["url_\(size)"], !url.isEmpty else { return nil }
            return (url, photo["width_\(size)"].flatMap { Int($0) } ?? 0, rank)
        }.sorted { ($0.width, $0.rank) < ($1.width, $1.rank) }
        var fields: [String: JSONValue] = [:]
        func set(_ key: String, _ value: String?) {
            if let value = value?.trimmingWhitespace(), !value.isEmpty { fields[key] = .string(value) }
        }
        set("imageUrl", (offered.first { $0.width >= largestWidth } ?? offered.last)?.url)
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
        func named(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        set("creator", named(photo["realname"]) ?? named(photo["ownername"]) ?? list["ownername"])
        set("licence", photo["license"].flatMap { licences[$0] })
        // The photo's page on Flickr, as its terms ask: by the owner's alias, else their id.
        let owner = named(photo["pathalias"]) ?? named(photo["owner"]) ?? list["owner"]
        if let owner, let id = photo["id"], !owner.isEmpty, !id.isEmpty, owner.allSatisfy(Self.isPathCharacter),
            id.allSatisfy({ $0.isASCII && $0.isNumber })
        {
            set("link", "https://www.flickr.com/photos/\(owner)/\(id)/")
        }
        return .object(fields)
    }

    /// What a Flickr user id (`91178292@N00`) or alias is made of.
    private static func isPathCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "@_-".contains(character))
    }
}
