package import Foundation
package import GalleryCore

/// Where a site's files are: the config's relative paths resolved against the site folder.
package struct SiteLayout: Sendable {
    /// Where the feed is, by kind.
    package enum FeedLocation: Sendable, Equatable {
        case file(URL)
        case folder(URL)
        case remote(URL)
    }

    package var siteDirectory: URL
    package var outputDirectory: URL
    package var cacheDirectory: URL
    package var feed: FeedLocation
    /// The intro Markdown file, when there is one.
    package var introFile: URL?
    /// The site's own theme, or nil for the built-in one.
    package var themeDirectory: URL?

    /// Resolves `config` for a site in `siteDirectory`; `outputOverride` is `--output`, relative to
    /// the current folder. A local feed that does not exist is a config error at `feed.url`.
    package init(
        config: SiteConfig, siteDirectory: URL, outputOverride: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) {
        let site = siteDirectory.standardizedFileURL
        self.siteDirectory = site
        let currentDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        self.outputDirectory =
            outputOverride.map { Self.resolve($0, against: currentDirectory) }
            ?? Self.resolve(config.output, against: site)
        self.cacheDirectory = Self.resolve(config.cache, against: site)
        self.themeDirectory = config.templates.map { Self.resolve($0, against: site) }

        let feedURL = config.feed.url
        if let url = URL(string: feedURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        {
            self.feed = .remote(url)
        } else if let url = URL(string: feedURL), url.scheme?.lowercased() == "s3" {
            self.feed = .remote(try Self.bucketListing(url, config: config, environment: environment))
        } else {
            let file =
                feedURL.lowercased().hasPrefix("file://")
                ? (URL(string: feedURL) ?? Self.resolve(feedURL, against: site)) : Self.resolve(feedURL, against: site)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
                throw ConfigError(
                    file: ConfigLoader.fileName,
                    location: config.feed.urlLocation,
                    "the feed \(file.path) does not exist; fix feed.url (a URL, or a path relative to the site folder)"
                )
            }
            self.feed = isDirectory.boolValue || config.feed.format == .folder ? .folder(file) : .file(file)
        }

        // A build reads the feed folder and writes the output: one inside the other would read
        // the last build's thumbnails as photos. The cache inside the output would be published,
        // and swept as a file of no build.
        if case .folder(let folder) = feed, outputDirectory.isInside(folder) {
            throw ConfigError(
                file: ConfigLoader.fileName, location: nil,
                "the output folder \(outputDirectory.path) is inside the feed folder \(folder.path); "
                    + "set `output:` to a folder outside it")
        }
        if cacheDirectory.isInside(outputDirectory) {
            throw ConfigError(
                file: ConfigLoader.fileName, location: nil,
                "the cache folder \(cacheDirectory.path) is inside the output folder \(outputDirectory.path), "
                    + "which is published; set `cache:` to a folder outside it")
        }
        if outputDirectory.isInside(cacheDirectory) {
            throw ConfigError(
                file: ConfigLoader.fileName, location: nil,
                "the output folder \(outputDirectory.path) is inside the cache folder \(cacheDirectory.path); "
                    + "set `output:` or `cache:` so that neither holds the other")
        }

        if let description = config.description {
            let file = Self.resolve(description, against: site)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw ConfigError(
                    file: ConfigLoader.fileName, location: nil, "the description file \(file.path) does not exist")
            }
            self.introFile = file
        } else {
            let index = site.appendingPathComponent("index.md")
            self.introFile = FileManager.default.fileExists(atPath: index.path) ? index : nil
        }
        if let theme = themeDirectory, !FileManager.default.fileExists(atPath: theme.path) {
            throw ConfigError(
                file: ConfigLoader.fileName, location: nil, "the templates folder \(theme.path) does not exist")
        }
    }

    /// A message as the published site may carry it (a failed photo's page and manifest record):
    /// the build machine's folders (the site, the cache, the output) named relative to the site
    /// or by their role, never by an absolute path.
    func publishedMessage(_ message: String) -> String {
        var text = message
        let folders = [
            (siteDirectory, ""), (cacheDirectory, "the cache's "), (outputDirectory, "the output's "),
        ]
        for (folder, name) in folders {
            let path = folder.standardizedFileURL.path
            let prefix = path.hasSuffix("/") ? path : path + "/"
            text = text.replacingOccurrences(of: prefix, with: name)
            text = text.replacingOccurrences(
                of: path, with: name.isEmpty ? "the site folder" : String(name.dropLast(3)))
        }
        return text
    }

    /// `s3://bucket/prefix`: the address of the bucket's listing of the keys under `prefix/`
    /// (ListObjectsV2), on AWS or the endpoint the environment names (docs/feeds.md, "An S3
    /// bucket"); `feed.paging.page_size` keys a page (S3's own limit, 1,000, without it).
    static func bucketListing(_ url: URL, config: SiteConfig, environment: [String: String]) throws(ConfigError)
        -> URL
    {
        func problem(_ message: String) -> ConfigError {
            ConfigError(file: ConfigLoader.fileName, location: config.feed.urlLocation, message)
        }
        guard let bucket = url.host, !bucket.isEmpty, url.user == nil, url.password == nil, url.query == nil else {
            throw problem(
                "`feed.url` \"\(config.feed.url)\" is no bucket: write s3://bucket or s3://bucket/prefix (keys come "
                    + "from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, never from gallery.yml)")
        }
        let s3 = S3Environment(environment)
        let endpoint: URL?
        switch s3.endpoint {
        case .success(let url): endpoint = url
        case .failure(let bad):
            throw problem("the S3 endpoint \"\(bad.text)\" (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) is no http(s) URL")
        }
        let prefix = url.path.split(separator: "/").joined(separator: "/")
        guard let address = s3.bucketAddress(bucket, endpoint: endpoint) else {
            throw problem("no S3 address for the bucket \"\(bucket)\" in the region \"\(s3.region)\"")
        }
        var query = "list-type=2"
        if !prefix.isEmpty { query += "&prefix=" + (prefix + "/").percentEncodedStrictly(keepingSlash: false) }
        if let size = config.feed.paging.pageSize { query += "&max-keys=\(size)" }
        guard let listing = URL(string: address.absoluteString + "?" + query) else {
            throw problem("no S3 address for the bucket \"\(bucket)\"")
        }
        return listing
    }
}

extension SiteLayout {
    /// `path` as gallery.yml gives it (absolute, or relative to `base`), as a standardized URL.
    static func resolve(_ path: String, against base: URL) -> URL {
        (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)).standardizedFileURL
    }
}
