import GalleryCore
import Testing

@testable import GalleryBuild

@Suite struct ConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> SiteConfig {
        try ConfigLoader().config(from: text, name: "gallery.yml")
    }

    @Test func readsEveryKey() throws {
        let config = try load(
            """
            title: Trips
            description: about.md
            feed:
              url: https://api.example.com/photos
              format: jsonplaceholder
              fields: {items: data, image: src, title: caption}
            images:
              widths: [320, 640]
              formats: [webp, jpeg, avif]
              quality: 70
              effort: 5
            output: dist
            cache: /var/cache/gg
            cache_limit: 2GB
            concurrency: 8
            per_host: 2
            max_image_bytes: 10MiB
            max_pixels: 50000000
            page_size: 24
            templates: theme
            base_url: https://photos.example.org/
            max_failures: 3
            allow_html: true
            exif: true
            grid: square
            tile_captions: false
            downloads: original
            seed: https://photos.example.org/
            remote_cache: s3://bucket/gallery/cache
            """
        )
        #expect(config.title == "Trips")
        #expect(config.description == "about.md")
        #expect(config.feed.url == "https://api.example.com/photos")
        #expect(config.feed.format == .jsonplaceholder)
        #expect(config.feed.fields == FieldMapping(items: "data", image: "src", title: "caption"))
        #expect(
            config.images == ImageSettings(widths: [320, 640], formats: [.webp, .jpeg, .avif], quality: 70, effort: 5))
        #expect(config.output == "dist" && config.cache == "/var/cache/gg")
        #expect(config.cacheLimit == 2_000_000_000)
        #expect(config.concurrency == 8 && config.perHost == 2)
        #expect(config.maxImageBytes == 10 * 1_048_576)
        #expect(config.maxPixels == 50_000_000 && config.pageSize == 24)
        #expect(config.templates == "theme" && config.baseURL == "https://photos.example.org/")
        #expect(config.maxFailures == 3 && config.allowRawHTML)
        #expect(config.showsCameraDetails && config.grid == .square)
        #expect(config.tileCaptions == .never && config.downloads == .original)
        #expect(config.seed == "https://photos.example.org/")
        #expect(config.remoteCache == "s3://bucket/gallery/cache")
    }

    @Test func fillsTheDefaults() throws {
        let config = try load("title: T\nfeed: feed.json\n")
        #expect(config.feed.url == "feed.json" && config.feed.format == .auto)
        #expect(
            config.images
                == ImageSettings(widths: [320, 480, 640, 1280, 1920], formats: [.webp], quality: 75, effort: 2))
        #expect(config.output == "public" && config.cache == ".gallerygen-cache")
        #expect(config.concurrency == 16 && config.perHost == 6)
        #expect(config.cacheLimit == nil && config.maxFailures == nil && !config.allowRawHTML)
        #expect(!config.showsCameraDetails && config.grid == .justified)
        #expect(config.tileCaptions == .auto && config.downloads == .off)
    }

    @Test func whichPostsOfAServiceArePublished() throws {
        let defaults = try load("title: T\nfeed: f.json\n")
        #expect(defaults.feed.visibility == .public && defaults.feed.sensitive == .leaveOut)
        let chosen = try load("title: T\nfeed: {url: f.json, visibility: unlisted, sensitive: Behind_Warning}\n")
        #expect(chosen.feed.visibility == .unlisted && chosen.feed.sensitive == .behindWarning)
    }

    @Test func aTypoNamesItsLineAndColumnAndSuggestsTheKey() {
        let error = #expect(throws: ConfigError.self) {
            try load("title: T\nfeed: feed.json\nimages:\n  widht: [480]\n")
        }
        #expect(error?.description == "gallery.yml:4:3: unknown key \"widht\"; did you mean \"widths\"?")
    }

    @Test(arguments: [
        ("title: T\nfeed: f.json\nconcurrency: lots\n", "gallery.yml:3:14: `concurrency` must be a whole number"),
        ("title: T\nfeed: f.json\nimages:\n  widths: 480\n", "gallery.yml:4:11: `images.widths` must be a list"),
        ("title: T\nfeed: f.json\nimages: {formats: [gif]}\n", "gallery.yml:3:20: unknown image format \"gif\""),
        ("title: T\nfeed: {url: f.json, format: xml}\n", "gallery.yml:2:29: unknown feed.format \"xml\""),
        (
            "title: T\nfeed: {url: f.json, visibility: private}\n",
            "gallery.yml:2:33: `feed.visibility: private`: followers-only and direct posts are never published",
        ),
        (
            "title: T\nfeed: {url: f.json, visibility: all}\n",
            "gallery.yml:2:33: `feed.visibility: all`: followers-only"
        ),
        (
            "title: T\nfeed: {url: f.json, visibility: everyone}\n",
            "gallery.yml:2:33: unknown feed.visibility \"everyone\""
        ),
        (
            "title: T\nfeed: {url: f.json, sensitive: blurred}\n",
            "gallery.yml:2:32: unknown feed.sensitive \"blurred\"; use leave_out (sensitive posts are not published) "
                + "or behind_warning"
        ),
        ("title: T\nfeed: f.json\ncache_limit: lots\n", "gallery.yml:3:14: `cache_limit` must be a size"),
        ("title: T\nfeed: f.json\nper_host: 0\n", "gallery.yml:3:11: `per_host` is 0; it must be at least 1"),
        ("title: T\n", "gallery.yml:1:1: missing `feed:`"),
        ("title: T\nfeed: f.json\ngrid: masonry\n", "gallery.yml:3:7: unknown grid \"masonry\"; use justified"),
        ("title: T\nfeed: f.json\ntile_captions: yes\n", "gallery.yml:3:16: unknown tile_captions \"yes\"; use auto"),
        ("title: T\nfeed: f.json\ndownloads: all\n", "gallery.yml:3:12: unknown downloads \"all\"; use off"),
        ("title: T\nfeed: f.json\nexif: sometimes\n", "gallery.yml:3:7: `exif` must be true or false"),
        ("feed: f.json\n", "gallery.yml:1:1: missing `title:`"),
        ("title: T\nfeed: f.json\nseed: public/\n", "gallery.yml:3:7: `seed` must be an http or https URL"),
        (
            "title: T\nfeed: f.json\nremote_cache: ftp://cache/\n",
            "gallery.yml:3:15: `remote_cache` must be an http(s) URL or s3://bucket/prefix"
        ),
        (
            "title: T\nfeed: f.json\nremote_cache: https://ci:hunter2@cache.example.org/\n",
            "gallery.yml:3:15: `remote_cache` must not hold a credential"
        ),
        ("title: T\nfeed: [a\n", "gallery.yml:3:1: invalid YAML"),
        (
            "title: T\nfeed: f.json\ntitle: again\n",
            "gallery.yml:3:1: duplicate key \"title\" (first at line 1); each key may appear once"
        ),
        (
            "title: T\nfeed: f.json\nimages:\n  quality: 70\n  widths: [1]\n  quality: 80\n",
            "gallery.yml:6:3: duplicate key \"quality\" (first at line 4)"
        ),
        // Sizes past what 64 bits hold: an error on their line, not a trap (exit 132).
        ("title: T\nfeed: f.json\ncache_limit: 10000000TB\n", "gallery.yml:3:14: `cache_limit` must be a size"),
        ("title: T\nfeed: f.json\ncache_limit: 1e30GB\n", "gallery.yml:3:14: `cache_limit` must be a size"),
        ("title: T\nfeed: f.json\ncache_limit: infGB\n", "gallery.yml:3:14: `cache_limit` must be a size"),
        ("title: T\nfeed: f.json\nmax_image_bytes: 1e300MB\n", "gallery.yml:3:18: `max_image_bytes` must be a size"),
        ("title: T\nfeed: f.json\nmax_image_bytes: 99999999999999999999\n", "gallery.yml:3:18: `max_image_bytes`"),
        ("title: T\nfeed: f.json\npage_size: 99999999999999999999\n", "gallery.yml:3:12: `page_size` must be"),
        // YAML's null is no title, and neither is one that shows nothing.
        ("title: ~\nfeed: f.json\n", "gallery.yml:1:8: `title` has no value (YAML reads `~` as null)"),
        ("title: null\nfeed: f.json\n", "gallery.yml:1:8: `title` has no value"),
        ("title: \"\u{200B} \u{FEFF}\"\nfeed: f.json\n", "gallery.yml:1:8: `title` is empty (it shows nothing)"),
        ("title: T\nfeed: ~\n", "gallery.yml:2:7: `feed` has no value"),
        // A URL written into sitemap.xml and og:url as it is: nothing a URL cannot hold.
        (
            "title: T\nfeed: f.json\nbase_url: https://example.com/my gallery/\n",
            "gallery.yml:3:11: `base_url` has a space, which a URL cannot hold; percent-encode it"
        ),
        ("title: T\nfeed: f.json\nbase_url: \"https://example.com/<b>\"\n", "gallery.yml:3:11: `base_url` has the"),
        ("title: T\nfeed: f.json\nbase_url: https:///path\n", "gallery.yml:3:11: `base_url` must be an http"),
        // Paging and a feed's secret.
        (
            "title: T\nfeed: {url: u, paging: {cursor_parameter: after}}\n",
            "gallery.yml:2:43: `feed.paging.cursor_parameter` needs `next:`"
        ),
        ("title: T\nfeed: {url: u, paging: {max_pages: 0}}\n", "gallery.yml:2:36: `feed.paging.max_pages` is 0"),
        (
            "title: T\nfeed: {url: u, paging: {next: a, page_parameter: page}}\n",
            "gallery.yml:2:50: `feed.paging` has both `next:` and `page_parameter:`"
        ),
        (
            "title: T\nfeed: {url: u, auth: {bearer: 1TOKEN}}\n",
            "gallery.yml:2:31: `feed.auth.bearer` is \"1TOKEN\", which is no environment variable's name"
        ),
        (
            "title: T\nfeed: {url: u, auth: {header: X-Key}}\n",
            "gallery.yml:2:22: `feed.auth.header` needs `env:`, the environment variable that holds the secret"
        ),
        (
            "title: T\nfeed: {url: u, auth: {bearer: T, query: k}}\n",
            "gallery.yml:2:22: `feed.auth` has bearer and query; give one way"
        ),
        // A control character is named by its code and spot, never echoed.
        ("title: T\u{0}X\nfeed: f.json\n", "gallery.yml:1:9: a control character (U+0000) has no place in gallery.yml"),
        ("title: T\nfeed: f.json\n\u{1B}[31m: x\n", "gallery.yml:3:1: a control character (U+001B)"),
    ])
    func badValuesPointAtTheirSpot(text: String, expected: String) {
        let error = #expect(throws: ConfigError.self) { try load(text) }
        #expect(error?.description.hasPrefix(expected) == true, "got: \(error?.description ?? "no error")")
    }

    @Test func noErrorEchoesAControlCharacter() {
        let error = #expect(throws: ConfigError.self) { try load("title: T\u{0}\u{7}\nfeed: f.json\n") }
        #expect(error?.description.unicodeScalars.allSatisfy { $0.value >= 0x20 } == true)
    }

    @Test func followsSymlinksOnlyWhenAsked() throws {
        #expect(try load("title: T\nfeed: photos\n").followsSymlinks == false)
        #expect(try load("title: T\nfeed: photos\nfollow_symlinks: true\n").followsSymlinks == true)
    }

    @Test func byteSizes() {
        #expect(ConfigReader.parseByteCount("2GB") == 2_000_000_000)
        #expect(ConfigReader.parseByteCount("1.5 GiB") == 1_610_612_736)
        #expect(ConfigReader.parseByteCount("500mb") == 500_000_000)
        #expect(ConfigReader.parseByteCount("1048576") == 1_048_576)
        #expect(ConfigReader.parseByteCount("-1GB") == nil)
        #expect(ConfigReader.parseByteCount("big") == nil)
        #expect(ConfigReader.parseByteCount("8000000TB") == 8_000_000_000_000_000_000)
        for text in ["9300000TB", "nanGB", "infGB", "1e3MB", "0x10MB", "1.2.3GB", ".GB", "9223372036854775808"] {
            #expect(ConfigReader.parseByteCount(text) == nil, "\(text)")
        }
    }
}
