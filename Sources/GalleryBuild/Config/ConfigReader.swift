import Foundation
import GalleryCore
import Yams

/// Walks the YAML node tree of `gallery.yml`, checking each key and value where it stands.
struct ConfigReader {
    static let topLevelKeys = [
        "title", "description", "feed", "images", "output", "cache", "cache_limit", "concurrency", "per_host",
        "max_image_bytes", "max_pixels", "page_size", "templates", "base_url", "max_failures", "allow_html",
        "exif", "location", "downloads", "albums", "keyword_pages", "grid", "tile_captions", "sort", "host_files",
        "seed",
        "remote_cache",
        "follow_symlinks", "language", "strings", "video",
    ]
    static let feedKeys = ["url", "format", "fields", "paging", "auth", "visibility", "sensitive"]
    static let pagingKeys = [
        "next", "cursor_parameter", "page_parameter", "first_page", "max_pages", "max_entries", "page_size",
    ]
    static let authKeys = ["bearer", "header", "query", "basic", "env"]
    static let fieldKeys = [
        "items", "image", "title", "album", "id", "link", "date", "description", "alt", "keywords", "taken", "creator",
        "rights", "licence", "video",
    ]
    static let imageKeys = ["widths", "formats", "quality", "effort"]
    static let videoKeys = ["heights", "webm", "audio", "max_duration", "max_pixels", "max_bytes", "time_limit"]

    let name: String
    /// The folder gallery.yml is in, which `templates:` is relative to (nil: a text read alone,
    /// whose theme's languages are not looked for).
    var siteDirectory: URL?

    mutating func siteConfig(from root: Node) throws(ConfigError) -> SiteConfig {
        let top = try mapping(root, what: "the top level", keys: Self.topLevelKeys)
        guard let titleNode = top["title"] else {
            throw error(.missingKey, at: root, "missing `title:` (the gallery's name)")
        }
        guard let feedNode = top["feed"] else {
            throw error(.missingKey, at: root, "missing `feed:` (a URL, or a path in the site folder)")
        }
        let defaults = SiteConfig(title: "", feed: FeedSettings(url: ""))
        var config = SiteConfig(title: try string(titleNode, key: "title"), feed: try feed(feedNode))
        config.description = try top["description"].map { node throws(ConfigError) in
            try string(node, key: "description")
        }
        if let node = top["images"] { config.images = try images(node) }
        if let node = top["video"] { config.video = try video(node) }
        config.output =
            try top["output"].map { node throws(ConfigError) in try path(node, key: "output") } ?? defaults.output
        config.cache =
            try top["cache"].map { node throws(ConfigError) in try path(node, key: "cache") } ?? defaults.cache
        config.cacheLimit = try top["cache_limit"].map { node throws(ConfigError) in
            try byteCount(node, key: "cache_limit")
        }
        config.concurrency =
            try top["concurrency"].map { node throws(ConfigError) in
                try integer(node, key: "concurrency", in: 1...256)
            } ?? defaults.concurrency
        config.perHost =
            try top["per_host"].map { node throws(ConfigError) in
                try integer(node, key: "per_host", in: 1...256)
            } ?? defaults.perHost
        config.maxImageBytes =
            try top["max_image_bytes"].map { node throws(ConfigError) in
                try byteCount(node, key: "max_image_bytes")
            } ?? defaults.maxImageBytes
        config.maxPixels =
            try top["max_pixels"].map { node throws(ConfigError) in
                try integer(node, key: "max_pixels", in: 1...Int(Int32.max))
            } ?? defaults.maxPixels
        config.pageSize =
            try top["page_size"].map { node throws(ConfigError) in
                try integer(node, key: "page_size", in: 1...100_000)
            } ?? defaults.pageSize
        config.templates = try top["templates"].map { node throws(ConfigError) in try path(node, key: "templates") }
        config.baseURL = try top["base_url"].map { node throws(ConfigError) in try webURL(node, key: "base_url") }
        config.maxFailures = try top["max_failures"].map { node throws(ConfigError) in
            try integer(node, key: "max_failures", in: 0...Int.max)
        }
        config.allowRawHTML =
            try top["allow_html"].map { node throws(ConfigError) in try bool(node, key: "allow_html") }
            ?? false
        config.showsCameraDetails =
            try top["exif"].map { node throws(ConfigError) in try bool(node, key: "exif") } ?? false
        config.keywordPages =
            try top["keyword_pages"].map { node throws(ConfigError) in try bool(node, key: "keyword_pages") } ?? true
        config.hostFiles =
            try top["host_files"].map { node throws(ConfigError) in try bool(node, key: "host_files") } ?? true
        config.followsSymlinks =
            try top["follow_symlinks"].map { node throws(ConfigError) in try bool(node, key: "follow_symlinks") }
            ?? false
        config.seed = try top["seed"].map { node throws(ConfigError) in try webURL(node, key: "seed") }
        config.remoteCache = try top["remote_cache"].map { node throws(ConfigError) in
            let value = try string(node, key: "remote_cache")
            if let problem = RemoteCacheLocation.problem(with: value) { throw error(at: node, problem) }
            return value
        }
        /// A key whose value is one of a few words.
        func choice<Value: RawRepresentable>(_ key: String, use help: String) throws(ConfigError) -> Value?
        where Value.RawValue == String {
            guard let node = top[key] else { return nil }
            let text = try string(node, key: key)
            guard let value = Value(rawValue: text) else {
                throw error(at: node, "unknown \(key) \"\(text)\"; use \(help)")
            }
            return value
        }
        config.location =
            try choice("location", use: "off (no place anywhere), city (rounded to about 11 km) or exact") ?? .off
        config.downloads =
            try choice(
                "downloads",
                use: "off, largest (the largest rendition) or original (the photo's own file), each with a zip "
                    + "of every album")
            ?? .off
        config.albums =
            try choice("albums", use: "feed (the feed's albums, a folder's folders) or year (by the year taken)")
            ?? .feed
        config.grid = try choice("grid", use: "justified (whole photos in rows) or square") ?? .justified
        config.tileCaptions =
            try choice(
                "tile_captions",
                use: "auto (titles the photos were given, not file names), true (every tile) or false (none)")
            ?? .auto
        config.order =
            try choice(
                "sort", use: "feed (the feed's order), name (by file name), oldest or newest (by the time taken)")
            ?? .feed
        let themeLanguages = config.templates.flatMap { templates in
            siteDirectory.map { SiteLayout.resolve(templates, against: $0).appendingPathComponent("languages") }
        }
        config.language = try language(tag: top["language"], strings: top["strings"], themeLanguages: themeLanguages)
        if config.title.cleanedLine().isVisiblyEmpty {
            throw error(at: titleNode, "`title` is empty (it shows nothing); give the gallery a name")
        }
        config.title = config.title.cleanedLine().trimmingWhitespace()
        return config
    }

    private func feed(_ node: Node) throws(ConfigError) -> FeedSettings {
        // `feed: photos.json` is short for `feed: {url: photos.json}`.
        if node.scalar != nil {
            return FeedSettings(url: try string(node, key: "feed"), urlLocation: location(of: node))
        }
        let keys = try mapping(node, what: "`feed`", keys: Self.feedKeys)
        guard let urlNode = keys["url"] else {
            throw error(.missingKey, at: node, "missing `feed.url` (a URL, or a path in the site folder)")
        }
        var settings = FeedSettings(url: try string(urlNode, key: "feed.url"), urlLocation: location(of: urlNode))
        if settings.url.isEmpty { throw error(at: urlNode, "`feed.url` is empty") }
        if let formatNode = keys["format"] {
            let text = try string(formatNode, key: "feed.format")
            // `atom` is read as `rss` is, `pixelfed` as `mastodon`: one reader takes both.
            let aliases = ["atom": "rss", "pixelfed": "mastodon"]
            guard let format = FeedFormat(rawValue: aliases[text.lowercased()] ?? text.lowercased()) else {
                let choices = FeedFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw error(at: formatNode, "unknown feed.format \"\(text)\"; use one of \(choices)")
            }
            settings.format = format
        }
        if let fieldsNode = keys["fields"] {
            let fields = try mapping(fieldsNode, what: "`feed.fields`", keys: Self.fieldKeys)
            guard let imageNode = fields["image"] else {
                throw error(at: fieldsNode, "`feed.fields` needs `image:` (the field that holds the image URL)")
            }
            func optional(_ key: String) throws(ConfigError) -> String? {
                try fields[key].map { node throws(ConfigError) in try string(node, key: "feed.fields.\(key)") }
            }
            settings.fields = FieldMapping(
                items: try optional("items") ?? "",
                image: try string(imageNode, key: "feed.fields.image"),
                title: try optional("title"),
                album: try optional("album"),
                id: try optional("id"),
                link: try optional("link"),
                date: try optional("date"),
                description: try optional("description"), alt: try optional("alt"),
                keywords: try optional("keywords"), taken: try optional("taken"), creator: try optional("creator"),
                rights: try optional("rights"), licence: try optional("licence"), video: try optional("video")
            )
        }
        if let pagingNode = keys["paging"] { settings.paging = try paging(pagingNode) }
        if let authNode = keys["auth"] { settings.credentials = try credentials(authNode) }
        if let visibilityNode = keys["visibility"] {
            let text = try string(visibilityNode, key: "feed.visibility")
            guard let visibility = PostVisibility(rawValue: text.lowercased()) else {
                let never = ["private", "direct", "followers-only", "followers", "all"].contains(text.lowercased())
                throw error(
                    at: visibilityNode,
                    never
                        ? "`feed.visibility: \(text)`: followers-only and direct posts are never published; use public "
                            + "or unlisted"
                        : "unknown feed.visibility \"\(text)\"; use public (public posts only) or unlisted (public and "
                            + "unlisted posts)")
            }
            settings.visibility = visibility
        }
        if let sensitiveNode = keys["sensitive"] {
            let text = try string(sensitiveNode, key: "feed.sensitive")
            guard let sensitive = SensitivePosts(rawValue: text.lowercased()) else {
                throw error(
                    at: sensitiveNode,
                    "unknown feed.sensitive \"\(text)\"; use leave_out (sensitive posts are not published) or "
                        + "behind_warning (published blurred behind their warning, shown on a click)")
            }
            settings.sensitive = sensitive
        }
        return settings
    }

    /// `feed.paging`: how an API of its own says where its next page is, and the limits.
    private func paging(_ node: Node) throws(ConfigError) -> FeedPaging {
        let keys = try mapping(node, what: "`feed.paging`", keys: Self.pagingKeys)
        func optional(_ key: String) throws(ConfigError) -> String? {
            try keys[key].map { node throws(ConfigError) in
                let value = try string(node, key: "feed.paging.\(key)")
                if value.isEmpty { throw error(at: node, "`feed.paging.\(key)` is empty") }
                return value
            }
        }
        var paging = FeedPaging(
            next: try optional("next"), cursorParameter: try optional("cursor_parameter"),
            pageParameter: try optional("page_parameter"))
        if let cursorNode = keys["cursor_parameter"], paging.next == nil {
            throw error(
                at: cursorNode,
                "`feed.paging.cursor_parameter` needs `next:` (the field of each page that holds the cursor)")
        }
        if let pageNode = keys["page_parameter"], paging.next != nil {
            throw error(
                at: pageNode,
                "`feed.paging` has both `next:` and `page_parameter:`; a feed says its next page one way, give one")
        }
        if let node = keys["first_page"] {
            guard paging.pageParameter != nil else {
                throw error(at: node, "`feed.paging.first_page` needs `page_parameter:`")
            }
            paging.firstPage = try integer(node, key: "feed.paging.first_page", in: 0...1_000_000)
        }
        if let node = keys["max_pages"] {
            paging.maxPages = try integer(node, key: "feed.paging.max_pages", in: 1...1_000_000)
        }
        if let node = keys["page_size"] {
            paging.pageSize = try integer(node, key: "feed.paging.page_size", in: 1...1000)
        }
        if let node = keys["max_entries"] {
            paging.maxEntries = try integer(node, key: "feed.paging.max_entries", in: 1...100_000_000)
        }
        return paging
    }

    /// `feed.auth`: one way of sending a secret, and the environment variable that holds it.
    private func credentials(_ node: Node) throws(ConfigError) -> FeedCredentials {
        let keys = try mapping(node, what: "`feed.auth`", keys: Self.authKeys)
        let ways = ["bearer", "header", "query", "basic"].filter { keys[$0] != nil }
        guard ways.count == 1, let way = ways.first, let wayNode = keys[way] else {
            throw error(
                at: node,
                ways.isEmpty
                    ? "`feed.auth` needs one of bearer: VARIABLE, header: NAME, query: NAME or basic: USER"
                    : "`feed.auth` has \(ways.joined(separator: " and ")); give one way of sending the secret")
        }
        let value = try string(wayNode, key: "feed.auth.\(way)")
        if value.isEmpty { throw error(at: wayNode, "`feed.auth.\(way)` is empty") }
        func variable() throws(ConfigError) -> String {
            guard let envNode = keys["env"] else {
                throw error(
                    at: node,
                    "`feed.auth.\(way)` needs `env:`, the environment variable that holds the secret "
                        + "(the secret itself is never written in gallery.yml)")
            }
            let name = try string(envNode, key: "feed.auth.env")
            guard Self.isVariableName(name) else {
                throw error(at: envNode, "`feed.auth.env` is \"\(name)\", which is no environment variable's name")
            }
            return name
        }
        let kind: FeedCredentials.Kind
        let name: String
        switch way {
        case "bearer":
            // `bearer: IMMICH_TOKEN` names the variable itself.
            if let envNode = keys["env"] {
                throw error(
                    at: envNode, "`feed.auth.bearer` names the environment variable; `env:` is not used with it")
            }
            guard Self.isVariableName(value) else {
                throw error(
                    at: wayNode, "`feed.auth.bearer` is \"\(value)\", which is no environment variable's name")
            }
            kind = .bearer
            name = value
        case "header":
            guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                throw error(at: wayNode, "`feed.auth.header` is \"\(value)\", which is no header name")
            }
            kind = .header(value)
            name = try variable()
        case "query":
            kind = .query(value)
            name = try variable()
        default:
            kind = .basic(user: value)
            name = try variable()
        }
        return FeedCredentials(kind: kind, variable: name, location: location(of: node))
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// `language:` (a BCP 47 tag) with the theme's strings the site gives under `strings:`, over
    /// the language's file in the site's theme (`themeLanguages`, its `languages/` folder) where
    /// it has one, else over the built-in one.
    private func language(tag tagNode: Node?, strings stringsNode: Node?, themeLanguages: URL?) throws(ConfigError)
        -> SiteLanguage
    {
        let tag = try tagNode.map { node throws(ConfigError) in try string(node, key: "language") } ?? "en"
        if let tagNode, !SiteLanguage.isWellFormed(tag) {
            throw error(
                at: tagNode,
                "`language` is \"\(tag)\", which is no language tag; write one such as en, de, pt-BR or zh-Hans "
                    + "(built in: \(SiteLanguage.builtInLanguages.joined(separator: ", ")))")
        }
        var overrides: [StringOverride] = []
        if let stringsNode {
            let keys = try mapping(stringsNode, what: "`strings`", keys: SiteLanguage.stringKeys)
            for key in keys.keys.sorted() {
                guard let node = keys[key] else { continue }
                let name = "strings.\(key)"
                if key == "months" {
                    guard node.sequence != nil else {
                        throw error(at: node, "`strings.months` must be a list of twelve names, January first")
                    }
                    let names = try sequence(node, key: name).map { item throws(ConfigError) in
                        try string(item, key: name)
                    }
                    overrides.append(StringOverride(key: key, forms: [], list: names, location: location(of: node)))
                } else if let forms = node.mapping {
                    var given: [(category: String?, text: String)] = []
                    for (categoryNode, text) in forms {
                        given.append(
                            (
                                try string(categoryNode, key: name),
                                try string(text, key: "\(name).\(categoryNode.string ?? "")")
                            ))
                    }
                    overrides.append(
                        StringOverride(
                            key: key, forms: given.sorted { ($0.category ?? "") < ($1.category ?? "") },
                            location: location(of: node)))
                } else {
                    overrides.append(
                        StringOverride(
                            key: key, forms: [(nil, try string(node, key: name))], location: location(of: node)))
                }
            }
        }
        var theme: SiteLanguage.Catalog?
        if let themeLanguages {
            do {
                theme = try SiteLanguage.themeCatalog(for: tag, in: themeLanguages)
            } catch {
                throw ConfigError(
                    .invalidValue, file: name, location: nil,
                    "the theme's \(error.file.path) \(error.message); fix it, or remove it for gallerygen's own words")
            }
        }
        do {
            return try SiteLanguage(tag: tag, overrides: overrides, theme: theme)
        } catch {
            throw ConfigError(.invalidValue, file: name, location: error.location, error.message)
        }
    }

    private func images(_ node: Node) throws(ConfigError) -> ImageSettings {
        let keys = try mapping(node, what: "`images`", keys: Self.imageKeys)
        var settings = ImageSettings()
        if let widthsNode = keys["widths"] {
            let items = try sequence(widthsNode, key: "images.widths")
            settings.widths = try items.map { item throws(ConfigError) in
                try integer(item, key: "images.widths", in: 16...10_000)
            }
            if settings.widths.isEmpty {
                throw error(at: widthsNode, "`images.widths` is empty; list at least one width")
            }
        }
        if let formatsNode = keys["formats"] {
            let items = try sequence(formatsNode, key: "images.formats")
            settings.formats = try items.map { item throws(ConfigError) in
                let text = try string(item, key: "images.formats").lowercased()
                guard let format = ImageFormat(rawValue: text == "jpg" ? "jpeg" : text), !format.isVideo else {
                    throw error(at: item, "unknown image format \"\(text)\"; use webp, jpeg or avif")
                }
                return format
            }
            if settings.formats.isEmpty { throw error(at: formatsNode, "`images.formats` is empty; list at least one") }
        }
        if let qualityNode = keys["quality"] {
            settings.quality = try integer(qualityNode, key: "images.quality", in: 1...100)
        }
        if let effortNode = keys["effort"] {
            settings.effort = try integer(effortNode, key: "images.effort", in: 0...6)
        }
        return settings
    }

    private func video(_ node: Node) throws(ConfigError) -> VideoSettings {
        let keys = try mapping(node, what: "`video`", keys: Self.videoKeys)
        var settings = VideoSettings()
        if let heightsNode = keys["heights"] {
            settings.heights = try sequence(heightsNode, key: "video.heights").map { item throws(ConfigError) in
                try integer(item, key: "video.heights", in: 16...4320)
            }
            if settings.heights.isEmpty {
                throw error(at: heightsNode, "`video.heights` is empty; list at least one height")
            }
        }
        if let node = keys["webm"] { settings.webm = try bool(node, key: "video.webm") }
        if let node = keys["audio"] { settings.audio = try bool(node, key: "video.audio") }
        if let node = keys["max_duration"] {
            settings.maxDuration = Double(try integer(node, key: "video.max_duration", in: 1...86_400))
        }
        if let node = keys["max_pixels"] {
            settings.maxPixels = try integer(node, key: "video.max_pixels", in: 1...Int(Int32.max))
        }
        if let node = keys["max_bytes"] { settings.maxBytes = try byteCount(node, key: "video.max_bytes") }
        if let node = keys["time_limit"] {
            settings.timeLimit = Double(try integer(node, key: "video.time_limit", in: 1...86_400))
        }
        return settings
    }

    // MARK: Typed values

    private func mapping(_ node: Node, what: String, keys allowed: [String]) throws(ConfigError) -> [String: Node] {
        guard let mapping = node.mapping else { throw error(at: node, "\(what) must be a mapping of keys to values") }
        var result: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw error(at: keyNode, "a key must be text") }
            guard allowed.contains(key) else {
                var message = "unknown key \"\(key)\""
                if let suggestion = Self.closest(to: key, in: allowed) {
                    message += "; did you mean \"\(suggestion)\"?"
                }
                throw error(.unknownKey, at: keyNode, message)
            }
            guard result[key] == nil else {
                throw error(.duplicateKey, at: keyNode, "the key \"\(key)\" appears twice")
            }
            result[key] = value
        }
        return result
    }

    private func sequence(_ node: Node, key: String) throws(ConfigError) -> [Node] {
        guard let sequence = node.sequence else { throw error(at: node, "`\(key)` must be a list, e.g. [480, 960]") }
        return Array(sequence)
    }

    private func string(_ node: Node, key: String) throws(ConfigError) -> String {
        guard let scalar = node.scalar else { throw error(at: node, "`\(key)` must be text") }
        // `key: ~`, `key: null` and `key:` are YAML's null, not the text "~" or "null".
        if scalar.style == .plain, node.null != nil {
            throw error(
                at: node, "`\(key)` has no value (YAML reads `\(scalar.string)` as null); write one, or remove the key")
        }
        return scalar.string
    }

    private func path(_ node: Node, key: String) throws(ConfigError) -> String {
        let value = try string(node, key: key)
        if value.isEmpty { throw error(at: node, "`\(key)` is empty") }
        return value
    }

    private func integer(_ node: Node, key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let scalar = node.scalar, let value = Int(scalar.string.replacingOccurrences(of: "_", with: "")) else {
            throw error(at: node, "`\(key)` must be a whole number")
        }
        guard range.contains(value) else {
            let upper = range.upperBound == Int.max ? "" : " and \(range.upperBound)"
            throw error(at: node, "`\(key)` is \(value); it must be at least \(range.lowerBound)\(upper)")
        }
        return value
    }

    private func bool(_ node: Node, key: String) throws(ConfigError) -> Bool {
        guard let value = node.bool else { throw error(at: node, "`\(key)` must be true or false") }
        return value
    }

    private func webURL(_ node: Node, key: String) throws(ConfigError) -> String {
        let value = try string(node, key: key)
        // URL(string:) takes a space, which would then be written raw into sitemap.xml and og:url.
        if let bad = value.unicodeScalars.first(where: { !Self.isURLCharacter($0) }) {
            let shown = bad == " " ? "a space" : "the character U+\(String(bad.value, radix: 16, uppercase: true))"
            throw error(
                at: node, "`\(key)` has \(shown), which a URL cannot hold; percent-encode it (a space is %20)")
        }
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else {
            throw error(at: node, "`\(key)` must be an http or https URL")
        }
        return value
    }

    /// What RFC 3986 lets a URL hold as written: ASCII letters, digits, the unreserved and
    /// reserved marks, and `%` of an escape.
    static func isURLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII, scalar.value > 0x20, scalar.value < 0x7F else { return false }
        return !"\"<>\\^`{|}".unicodeScalars.contains(scalar)
    }

    /// `2GB`, `500 MB`, `1.5GiB`, `1048576`: decimal units (KB, MB, GB, TB) and binary ones
    /// (KiB, MiB, GiB, TiB).
    private func byteCount(_ node: Node, key: String) throws(ConfigError) -> Int64 {
        let text = try string(node, key: key).trimmingWhitespace()
        guard let value = Self.parseByteCount(text) else {
            throw error(
                at: node,
                "`\(key)` must be a size such as 500MB or 2GB, at most \(Self.largestByteCount) (got \"\(text)\")")
        }
        return value
    }

    /// About the largest size a key takes (an Int64 of bytes holds up to 9.2e18).
    static let largestByteCount = "8000000TB"

    /// The size `text` names, or nil when it is no size or too large to hold.
    static func parseByteCount(_ text: String) -> Int64? {
        let units: [(String, Double)] = [
            ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("tib", 1_099_511_627_776),
            ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("tb", 1e12), ("k", 1e3), ("m", 1e6), ("g", 1e9), ("t", 1e12),
            ("b", 1),
        ]
        let lower = text.lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "_", with: "")
        for (suffix, factor) in units where lower.hasSuffix(suffix) {
            // Digits and one point only: Double also reads "inf", "nan", "1e300" and hex, and a
            // product past Int64 would trap on conversion instead of naming the line.
            let digits = lower.dropLast(suffix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                digits.filter({ $0 == "." }).count <= 1, let number = Double(digits)
            else { return nil }
            return Int64(exactly: (number * factor).rounded(.down)) ?? nil
        }
        guard let number = Int64(lower), number >= 0 else { return nil }
        return number
    }

    private func error(_ code: ConfigError.Code = .invalidValue, at node: Node, _ message: String) -> ConfigError {
        ConfigError(code, file: name, location: location(of: node), message)
    }

    private func location(of node: Node) -> SourceLocation? {
        node.mark.map { SourceLocation(file: name, line: $0.line, column: $0.column) }
    }

    /// The allowed key nearest to a typo, if it is near enough to be what was meant.
    static func closest(to key: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(key.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, key.count / 3) else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
