import AsyncHTTPClient
import Feed
package import Foundation
package import GalleryBuild
package import GalleryCore
import Loading
import NIOCore
import NIOHTTP1

/// `gallerygen init`: a new site's files, written once. A commented gallery.yml (its feed read
/// once to name its format and count its photos), an index.md, a .gitignore for the output and
/// the cache, and with a CI choice a ready workflow. An existing file is never replaced.
package struct SiteStarter: Sendable {
    package var directory: URL
    /// A feed URL, a JSON file or a folder of images, as the user typed it; nil: `photos/`.
    package var feed: String?
    package var ci: CIWorkflow?
    /// Where relative feed paths are taken from (the current folder).
    package var workingDirectory: URL

    /// The feed's format, when the user names it (`--format`); nil: found by reading it.
    package var format: FeedFormat?

    package init(
        directory: URL, feed: String?, ci: CIWorkflow?, workingDirectory: URL, format: FeedFormat? = nil
    ) {
        self.format = format
        self.directory = directory.standardizedFileURL
        self.feed = feed
        self.ci = ci
        self.workingDirectory = workingDirectory
    }

    package struct Outcome: Sendable {
        /// Paths written, relative to the current folder when inside it.
        package var written: [String] = []
        /// Paths that existed and were left as they were.
        package var kept: [String] = []
        /// What the feed is, as read: `JSON Feed, 42 photos`; nil when gallery.yml was kept.
        package var feedSummary: String?
        package var warnings: [String] = []
        /// The command to run next.
        package var next: String
    }

    /// What the feed is, read once.
    struct FeedProbe {
        /// As gallery.yml will say it: a URL, or a path relative to the site folder.
        var setting: String
        var format: String
        var summary: String
        /// gallery.yml's `feed.auth` for it, when the feed needs a secret.
        var auth: String?
        /// gallery.yml's `feed.format`, when the build cannot find it alone (a WebDAV folder).
        var formatSetting: String?
    }

    /// The variable a Flickr API key is read from.
    static let flickrKeyVariable = "FLICKR_API_KEY"

    package func run() async throws(BuildError) -> Outcome {
        let fileManager = FileManager.default
        let configFile = directory.appendingPathComponent(ConfigLoader.fileName)
        // A site that has its gallery.yml keeps it: its feed is not read again, and a workflow
        // publishes its own output folder.
        var output = "public"
        var probe: FeedProbe?
        if fileManager.fileExists(atPath: configFile.path) {
            do {
                output = try ConfigLoader().config(inSite: directory).output
            } catch {
                throw BuildError(.configuration, underlying: error)
            }
        } else {
            probe = try await probeFeed()
        }
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BuildError(
                .output, "cannot make the folder \(directory.path)", underlying: FileWriteFailure(error as NSError))
        }
        let title = Self.title(for: directory)
        var files: [(URL, String)] = [
            (configFile, probe.map { Self.configText(title: title, feed: $0) } ?? ""),
            (
                directory.appendingPathComponent("index.md"),
                "Photos by me. This text is Markdown, shown above the grid.\n"
            ),
            (
                directory.appendingPathComponent(".gitignore"),
                "# Built by gallerygen: the site and its cache.\n/public/\n/.gallerygen-cache/\n"
            ),
        ]
        if let ci {
            let root = Self.repositoryRoot(containing: directory) ?? directory
            let site = Self.relativePath(of: directory, from: root) ?? "."
            files.append((root.appendingPathComponent(ci.path), ci.text(site: site, output: output)))
        }
        var outcome = Outcome(feedSummary: probe?.summary, next: "")
        if probe == nil, let feed {
            outcome.warnings.append("\(ConfigLoader.fileName) exists and was kept: --feed \(feed) was not used")
        }
        for (file, text) in files {
            let name = Self.relativePath(of: file, from: workingDirectory) ?? file.path
            if fileManager.fileExists(atPath: file.path) {
                outcome.kept.append(name)
                continue
            }
            do {
                try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AtomicFile.write(Data(text.utf8), to: file)
            } catch {
                throw BuildError(.output, "cannot write \(name)", underlying: FileWriteFailure(error as NSError))
            }
            outcome.written.append(name)
        }
        let site = Self.relativePath(of: directory, from: workingDirectory) ?? directory.path
        outcome.next = site == "." ? "gallerygen build" : "gallerygen build \(site)"
        if let probe, probe.format == "folder", feed == nil {
            let photos = directory.appendingPathComponent(probe.setting)
            try? fileManager.createDirectory(at: photos, withIntermediateDirectories: true)
            let name = Self.relativePath(of: photos, from: workingDirectory) ?? photos.path
            outcome.next = "put photos in \(name)/, then \(outcome.next)"
        }
        if let probe, probe.setting.hasPrefix("/") {
            outcome.warnings.append(
                "the feed \(probe.setting) is outside the site folder: a CI runner will not have it; "
                    + "move it into \(site) and change feed.url")
        }
        return outcome
    }

    // MARK: The feed

    private func probeFeed() async throws(BuildError) -> FeedProbe {
        let reader = FeedReader()
        guard let feed else {
            return FeedProbe(
                setting: "photos", format: "folder", summary: "a folder of images, photos/ (put your photos there)")
        }
        if let url = URL(string: feed), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            if format == .webdav || (format == nil && Self.looksLikeWebDAV(url)) { return try await probeWebDAV(url) }
            if format == .flickr || (format == nil && FeedReader.isFlickrAPI(url)) {
                return try await probeFlickr(url, reader: reader)
            }
            let reader = FeedReader(configuration: FeedReader.Configuration(format: format ?? .auto))
            let (data, link) = try await Self.download(reader.firstPage(url))
            do {
                let name = try reader.shapeName(of: data, name: feed)
                let document = try reader.document(from: data, location: url, name: feed)
                let paged = document.next != nil || link.flatMap { FeedPages.next(inLinkHeader: $0, base: url) } != nil
                return FeedProbe(
                    setting: feed, format: name, summary: Self.summary(name, document, firstPageOnly: paged),
                    formatSetting: format.map(\.rawValue))
            } catch {
                throw BuildError(.feed, underlying: error)
            }
        }
        if let url = URL(string: feed), url.scheme?.lowercased() == "s3" {
            // Listed by the build, signed with the AWS variables of wherever it runs.
            guard let bucket = url.host, !bucket.isEmpty else {
                throw BuildError(.configuration, "--feed \(feed): write s3://bucket or s3://bucket/prefix")
            }
            let prefix = url.path.split(separator: "/").joined(separator: "/")
            return FeedProbe(
                setting: feed, format: "s3",
                summary: "the S3 bucket \(bucket)"
                    + (prefix.isEmpty ? "" : ", under \(prefix)/")
                    + " (listed by each build, with the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
        }
        let file = URL(fileURLWithPath: feed, relativeTo: workingDirectory).standardizedFileURL
        let setting = Self.relativePath(of: file, from: directory) ?? file.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw BuildError(.configuration, "--feed \(feed): no such file or folder")
        }
        do {
            if isDirectory.boolValue {
                let document = try reader.document(fromFolder: file, allowedRoots: [directory, file])
                return FeedProbe(setting: setting, format: "folder", summary: Self.summary("a folder", document))
            }
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw BuildError(.feed, "--feed \(feed): cannot read it")
            }
            let reader = FeedReader(configuration: FeedReader.Configuration(format: format ?? .auto))
            let name = try reader.shapeName(of: data, name: feed)
            let document = try reader.document(from: data, location: file, name: feed)
            return FeedProbe(
                setting: setting, format: name, summary: Self.summary(name, document),
                formatSetting: format.map(\.rawValue))
        } catch let error as BuildError {
            throw error
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }

    /// Flickr's API needs a key: gallery.yml names the variable it is read from and never holds it.
    /// A key written in the address is used to read the feed now and taken out of it; else the
    /// variable's, when set; else the feed is recognised by its address only.
    private func probeFlickr(_ url: URL, reader: FeedReader) async throws(BuildError) -> FeedProbe {
        let given = FeedPages.queryValue("api_key", in: url)
        let setting = FeedPages.url(url, removing: ["api_key"])
        let auth = "{query: api_key, env: \(Self.flickrKeyVariable)}"
        guard let key = given ?? ProcessInfo.processInfo.environment[Self.flickrKeyVariable], !key.isEmpty else {
            return FeedProbe(
                setting: setting.absoluteString, format: "Flickr API",
                summary: "Flickr's API, not read now: set \(Self.flickrKeyVariable) to your API key", auth: auth)
        }
        let (data, _) = try await Self.download(reader.firstPage(FeedPages.url(setting, setting: "api_key", to: key)))
        do {
            let document = try reader.document(from: data, location: setting, name: setting.absoluteString)
            return FeedProbe(
                setting: setting.absoluteString, format: "Flickr API",
                summary: Self.summary("Flickr API", document) + "; the key is read from \(Self.flickrKeyVariable)",
                auth: auth)
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }

    private static func summary(_ format: String, _ document: FeedDocument, firstPageOnly: Bool = false) -> String {
        let photos = document.photos.count == 1 ? "1 photo" : "\(document.photos.count) photos"
        let count = document.skipped.count
        let skipped =
            count == 0
            ? "" : count == 1 ? " (1 entry without an image URL)" : " (\(count) entries without an image URL)"
        let pages = firstPageOnly ? " on its first page (each build reads every page)" : ""
        return "\(format), \(photos)\(pages)\(skipped)"
    }

    /// The addresses WebDAV servers give their folders (Nextcloud's and ownCloud's
    /// `remote.php/dav/files/…`, `remote.php/webdav/…`, a public share's `public.php/webdav/…`),
    /// which answer a GET with no listing.
    static func looksLikeWebDAV(_ url: URL) -> Bool {
        let path = url.path.lowercased()
        // A feed file kept in such a folder is read as a file.
        let name = url.lastPathComponent.lowercased()
        if ["json", "xml", "rss", "atom"].contains((name as NSString).pathExtension) { return false }
        return ["/remote.php/dav/", "/remote.php/webdav", "/public.php/webdav", "/public.php/dav/", "/webdav/"]
            .contains { path.contains($0) }
    }

    /// A WebDAV folder, listed once (`PROPFIND`, `Depth: 1`) to count what is at its top; one that
    /// asks for a login is recognised by its address and not read now.
    private func probeWebDAV(_ url: URL) async throws(BuildError) -> FeedProbe {
        let folder = url.absoluteString.hasSuffix("/") ? url : url.appendingPathComponent("")
        let setting = folder.absoluteString
        var request = HTTPClientRequest(url: setting)
        request.method = .RAW(value: "PROPFIND")
        request.headers.add(name: "Depth", value: "1")
        request.headers.add(name: "Content-Type", value: "application/xml")
        request.headers.add(name: "User-Agent", value: "gallerygen/\(GalleryVersion.current)")
        request.body = .bytes(ByteBuffer(string: HTTPLoader.propfindBody))
        let status: UInt
        let body: Data
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            status = response.status.code
            body = Data(try await response.body.collect(upTo: 50_000_000).readableBytesView)
        } catch {
            throw BuildError(.feed, "\(setting): cannot list the WebDAV folder (\(error))")
        }
        if status == 401 || status == 403 {
            return FeedProbe(
                setting: setting, format: "WebDAV",
                summary: "a WebDAV folder, not read now: it asks for a login (give `auth: {basic: USER, env: "
                    + "VARIABLE}` with the password in that variable)",
                formatSetting: "webdav")
        }
        guard status == 207 else {
            throw BuildError(.feed, "\(setting): HTTP \(status) to a WebDAV listing (PROPFIND); is it a WebDAV folder?")
        }
        do {
            let listing = try WebDAVListing(data: body, folder: folder, root: folder, name: setting)
            let photos = listing.files.filter { FeedReader.isMediaName($0.name) && !$0.name.hasPrefix(".") }.count
            let folders = listing.folders.count
            let inside =
                folders == 0
                ? "" : " and \(folders == 1 ? "1 folder" : "\(folders) folders") (each build lists every folder)"
            return FeedProbe(
                setting: setting, format: "WebDAV",
                summary: "a WebDAV folder, \(photos == 1 ? "1 photo" : "\(photos) photos") at its top" + inside,
                formatSetting: "webdav")
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }

    /// The body and the `Link` header of a GET.
    private static func download(_ url: URL) async throws(BuildError) -> (Data, String?) {
        do {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "User-Agent", value: "gallerygen/\(GalleryVersion.current)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            guard response.status == .ok else {
                throw BuildError(.feed, "\(url.absoluteString): HTTP \(response.status.code)")
            }
            let body = try await response.body.collect(upTo: 200_000_000)
            let link = response.headers["Link"].joined(separator: ", ")
            return (Data(body.readableBytesView), link.isEmpty ? nil : link)
        } catch let error as BuildError {
            throw error
        } catch {
            throw BuildError(.feed, "\(url.absoluteString): cannot read the feed (\(error))")
        }
    }

    // MARK: Files

    /// The folder's name as a title: `my-trips` -> `My trips`.
    static func title(for directory: URL) -> String {
        let words = directory.lastPathComponent.replacingOccurrences(of: "-", with: " ")
            .replacingOccurrences(of: "_", with: " ").trimmingWhitespace()
        guard let first = words.first, words != "." else { return "My photos" }
        return first.uppercased() + words.dropFirst()
    }

    /// The nearest folder at or above `directory` holding `.git`.
    static func repositoryRoot(containing directory: URL) -> URL? {
        var folder = directory
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// `file` relative to `base` when inside it (`.` for `base` itself); nil when outside.
    static func relativePath(of file: URL, from base: URL) -> String? {
        let path = file.standardizedFileURL.path
        let root = base.standardizedFileURL.path
        if path == root { return "." }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }

    static func configText(title: String, feed: FeedProbe) -> String {
        let quotedTitle = CIWorkflow.quoted(title)
        let quotedFeed = CIWorkflow.quoted(feed.setting)
        return """
            # gallery.yml: what `gallerygen build` makes of this folder. Only title and feed are required;
            # every other key shows its default, and a commented one is off until you set it.
            title: \(quotedTitle)

            # Where the photos come from: a feed URL, a JSON file, a folder of images (relative to this
            # file), or an S3 bucket (s3://bucket/prefix). Read by `gallerygen init`: \(feed.summary).
            # A feed behind a secret takes `auth:`, one of many pages `paging:` (docs/feeds.md).
            feed:
              url: \(quotedFeed)
              format: \(feed.formatSetting ?? "auto")   # \(feed.formatSetting == nil ? "detected on every build; or" : "or auto,") jsonplaceholder, itunes, jsonfeed, list, folder,
                             # rss, mastodon, piwigo, flickr, webdav (a WebDAV folder: never detected)\(feed.auth.map { "\n  auth: \($0)   # the secret, from the environment" } ?? "")

            # The site's public address: feeds, the sitemap and link previews need it.
            # base_url: https://photos.example.org/

            # Where the site is published: a build on an empty cache (a fresh CI runner) takes the
            # thumbnails of unchanged photos from it instead of downloading and encoding them.
            # seed: https://photos.example.org/

            # A cache shared by every machine that builds the site (and by `--shard K/N` builds):
            # an http(s) URL with PUT, or s3://bucket/prefix. Keys come from the environment
            # (GALLERYGEN_REMOTE_CACHE_TOKEN, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
            # remote_cache: s3://my-bucket/gallery-cache

            images:
              widths: [320, 480, 640, 1280, 1920]   # thumbnail widths in pixels
              formats: [webp]                       # webp, avif, jpeg
              quality: 75

            output: public               # the site
            cache: .gallerygen-cache     # downloads and thumbnails kept between builds; CI keeps it too
            # language: de               # the pages' language: de, fr, es, ja, ar, ... (docs/languages.md)
            # grid: square               # square tiles instead of justified rows
            # exif: true                 # photo pages show what the camera recorded (never where)
            # max_failures: 0            # fail the build when more photos than this fail

            """
    }
}
