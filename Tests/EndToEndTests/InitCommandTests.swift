import Foundation
import GalleryBuild
import SiteStarter
import TestSupport
import Testing

/// `gallerygen init`: a new site's files, written once, that build as they are.
@Suite struct InitCommandTests {
    @Test func startsASiteInARepositoryWithAGitHubWorkflowThatBuilds() async throws {
        let repository = try TemporaryDirectory("repo")
        try FileManager.default.createDirectory(at: repository.file(".git"), withIntermediateDirectories: true)
        // A list feed of three photos, already in what will be the site folder.
        let photos = try FixtureSite(count: 3)
        let site = repository.file("gallery")
        try FileManager.default.copyItem(at: photos.url, to: site)
        try FileManager.default.removeItem(at: site.appendingPathComponent("gallery.yml"))
        try FileManager.default.removeItem(at: site.appendingPathComponent("index.md"))

        let run = try await CommandRun.gallerygen(
            ["init", "gallery", "--feed", "gallery/feed.json", "--ci", "github"], in: repository.url)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("Feed: list, 3 photos"))
        for name in ["gallery/gallery.yml", "gallery/index.md", "gallery/.gitignore", ".github/workflows/gallery.yml"] {
            #expect(run.standardOutput.contains("wrote \(name)"), "\(run.standardOutput)")
        }
        #expect(run.standardOutput.contains("Next: gallerygen build gallery"))
        let workflow = try String(contentsOf: repository.file(".github/workflows/gallery.yml"), encoding: .utf8)
        #expect(workflow == CIWorkflow.github.text(site: "gallery", output: "public"))
        #expect(workflow.contains(#"path: "gallery/public""#))
        let config = try String(contentsOf: site.appendingPathComponent("gallery.yml"), encoding: .utf8)
        #expect(config.contains("url: \"feed.json\""), "the feed relative to the site folder")
        let gitignore = try String(contentsOf: site.appendingPathComponent(".gitignore"), encoding: .utf8)
        #expect(gitignore.contains("/public/") && gitignore.contains("/.gallerygen-cache/"))

        let build = try await CommandRun.gallerygen(["build", "gallery"], in: repository.url)
        #expect(build.status == 0, "\(build.standardError)")
        #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent("public/index.html").path))

        // Run again, with GitLab: nothing existing is touched, and the workflow is added.
        let before = try Data(contentsOf: site.appendingPathComponent("gallery.yml"))
        let again = try await CommandRun.gallerygen(
            ["init", "gallery", "--ci", "gitlab", "--feed", "elsewhere.json"], in: repository.url)
        #expect(again.standardError.contains("gallery.yml exists and was kept: --feed elsewhere.json was not used"))
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("kept  gallery/gallery.yml"))
        #expect(again.standardOutput.contains("wrote .gitlab-ci.yml"))
        #expect(try Data(contentsOf: site.appendingPathComponent("gallery.yml")) == before)
    }

    @Test func readsAFeedURLOnceToNameItsFormat() async throws {
        let upstream = try await Upstream(count: 4)
        let folder = try TemporaryDirectory("init")

        let run = try await CommandRun.gallerygen(["init", "site", "--feed", upstream.feedURL], in: folder.url)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("Feed: list, 4 photos"))
        #expect(upstream.server.count("/feed.json") == 1)
        #expect(try await CommandRun.gallerygen(["build", "site"], in: folder.url).status == 0)
        try await upstream.server.shutdown()
    }

    /// A Nextcloud folder's address answers a GET with no listing: `init` knows it by its
    /// address (or by `--format webdav`), lists it once with PROPFIND, and writes `format: webdav`,
    /// so that the build reads it.
    @Test(arguments: [("/remote.php/dav/files/ana/Photos/", nil), ("/dav/photos/", "webdav")] as [(String, String?)])
    func aWebDAVFolderIsRecognisedAndListed(path: String, format: String?) async throws {
        let server = try await TestHTTPServer { request in
            guard request.method == "PROPFIND" else {
                return request.path.hasSuffix(".jpg") ? .photo(request.path.hasSuffix("a.jpg") ? 1 : 2) : .text(405)
            }
            let folder = request.path
            let listing =
                #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">"#
                + [("", true), ("a.jpg", false), ("b.jpg", false), ("notes.txt", false), ("Trip/", true)]
                .filter { folder == path || $0.0.isEmpty }
                .map { name, isFolder in
                    "<d:response><d:href>\(folder)\(name)</d:href><d:propstat><d:prop><d:resourcetype>"
                        + (isFolder ? "<d:collection/>" : "") + "</d:resourcetype></d:prop>"
                        + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
                }.joined() + "</d:multistatus>"
            return .init(status: 207, headers: [("Content-Type", "application/xml")], body: Array(listing.utf8))
        }
        let folder = try TemporaryDirectory("init")

        let run = try await CommandRun.gallerygen(
            ["init", "site", "--feed", server.baseURL + path] + (format.map { ["--format", $0] } ?? []), in: folder.url)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains("Feed: a WebDAV folder, 2 photos at its top and 1 folder"),
            "\(run.standardOutput)")
        let config = try String(contentsOf: folder.file("site/gallery.yml"), encoding: .utf8)
        #expect(config.contains("format: webdav"), "\(config)")
        let build = try await CommandRun.gallerygen(["build", "site"], in: folder.url)
        #expect(build.status == 0, "\(build.standardError)")
        #expect(build.standardOutput.contains("2 photos"), "\(build.standardOutput)")
        try await server.shutdown()
    }

    /// A feed file kept in such a folder is a file: read with a GET.
    @Test func aFeedFileInAWebDAVFolderIsReadAsAFile() async throws {
        let upstream = try await Upstream(count: 2)
        let server = try await TestHTTPServer { request in
            request.method == "GET" && request.path.hasSuffix("/feed.json")
                ? .init(
                    headers: [("Content-Type", "application/json")],
                    body: Array(
                        #"[{"title": "a", "imageUrl": "\#(upstream.feedURL.replacingOccurrences(of: "feed.json", with: "photos/1.jpg"))"}]"#
                            .utf8))
                : .text(405)
        }
        let folder = try TemporaryDirectory("init")
        let run = try await CommandRun.gallerygen(
            ["init", "site", "--feed", server.baseURL + "/remote.php/dav/files/ana/feed.json"], in: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("Feed: list, 1 photo"), "\(run.standardOutput)")
        try await server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func aWebDAVFolderThatAsksForALoginIsNamedNotRead() async throws {
        let server = try await TestHTTPServer { _ in .text(401, "login") }
        let folder = try TemporaryDirectory("init")
        let run = try await CommandRun.gallerygen(
            ["init", "site", "--feed", server.baseURL + "/remote.php/webdav/Photos"], in: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("a WebDAV folder, not read now: it asks for a login"))
        #expect(try String(contentsOf: folder.file("site/gallery.yml"), encoding: .utf8).contains("format: webdav"))
        try await server.shutdown()
    }

    /// A paged feed: `init` reads its first page, and says so.
    @Test func aPagedFeedIsSaidToBeCountedOnItsFirstPage() async throws {
        let server = try await TestHTTPServer { request in
            .init(
                headers: [("Content-Type", "application/feed+json")],
                body: Array(
                    #"{"version": "https://jsonfeed.org/version/1.1", "title": "T", "next_url": "/feed?page=2", "items": [{"id": "1", "image": "/a.jpg"}]}"#
                        .utf8))
        }
        let folder = try TemporaryDirectory("init")
        let run = try await CommandRun.gallerygen(["init", "site", "--feed", server.baseURL + "/feed"], in: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains("1 photo on its first page (each build reads every page)"),
            "\(run.standardOutput)")
        try await server.shutdown()
    }

    /// The same when the next page is named by a `Link` header (GitHub's, Mastodon's), not by the
    /// body; a `Link` with no next page is no paging.
    @Test(arguments: [
        (#"</feed?page=2>; rel="next", </feed?page=9>; rel="last""#, true), (#"</feed?page=1>; rel="first""#, false),
    ])
    func aLinkHeadersNextPageIsSaidToo(link: String, paged: Bool) async throws {
        let server = try await TestHTTPServer { request in
            .init(
                headers: [("Content-Type", "application/json"), ("Link", link)],
                body: Array(#"[{"title": "a", "imageUrl": "/a.jpg"}]"#.utf8))
        }
        let folder = try TemporaryDirectory("init")
        let run = try await CommandRun.gallerygen(["init", "site", "--feed", server.baseURL + "/feed"], in: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("on its first page") == paged, "\(run.standardOutput)")
        try await server.shutdown()
    }

    @Test func anUnknownFormatIsAUsageError() async throws {
        let run = try await CommandRun.gallerygen(["init", "site", "--format", "dav"])
        #expect(run.status == 64 || run.status == 2, "\(run.status)")
        #expect(run.standardError.contains("unknown --format \"dav\""))
    }

    @Test func anS3BucketIsNamedAndLeftToTheBuildToList() async throws {
        let folder = try TemporaryDirectory("init")

        let run = try await CommandRun.gallerygen(
            ["init", "site", "--feed", "s3://my-photos/trips/2024"], in: folder.url)

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains("Feed: the S3 bucket my-photos, under trips/2024/"), "\(run.standardOutput)")
        let config = try String(contentsOf: folder.file("site/gallery.yml"), encoding: .utf8)
        #expect(config.contains("url: \"s3://my-photos/trips/2024\""), "\(config)")
    }

    @Test func aFlickrAddressIsNamedWithItsKeyReadFromTheEnvironment() async throws {
        let folder = try TemporaryDirectory("init")
        let address =
            "https://api.flickr.com/services/rest/?method=flickr.photosets.getPhotos&photoset_id=72157624715342071"

        // No key in the address nor in FLICKR_API_KEY: named by its address, not read.
        let run = try await CommandRun.gallerygen(
            ["init", "site", "--feed", address], in: folder.url, environment: ["FLICKR_API_KEY": ""])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("set FLICKR_API_KEY to your API key"), "\(run.standardOutput)")
        let config = try String(contentsOf: folder.file("site/gallery.yml"), encoding: .utf8)
        #expect(config.contains("url: \"\(address)\""), "\(config)")
        #expect(config.contains("\n  auth: {query: api_key, env: FLICKR_API_KEY}"), "\(config)")
    }

    @Test func withoutAFeedItMakesAPhotosFolder() async throws {
        let folder = try TemporaryDirectory("init")
        let run = try await CommandRun.gallerygen(["init"], in: folder.url)
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("Next: put photos in photos/, then gallerygen build"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder.file("photos").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }

    @Test func aFeedThatCannotBeReadWritesNothing() async throws {
        let folder = try TemporaryDirectory("init")
        try folder.write("{not json", to: "feed.json")

        let broken = try await CommandRun.gallerygen(["init", "site", "--feed", "feed.json"], in: folder.url)
        let missing = try await CommandRun.gallerygen(["init", "site", "--feed", "nowhere.json"], in: folder.url)

        #expect(broken.status == 1 && broken.standardError.contains("feed.json"))
        #expect(missing.status == 2 && missing.standardError.contains("--feed nowhere.json: no such file"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("site").path))
    }

    @Test func theExamplesAreWhatInitWrites() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/ci").standardizedFileURL
        for (workflow, name) in [(CIWorkflow.github, "github-pages.yml"), (.gitlab, "gitlab-ci.yml")] {
            let text = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
            #expect(text == workflow.text(site: ".", output: "public"), "examples/ci/\(name)")
        }
    }

    @Test func anyFolderNameStaysOneYAMLString() async throws {
        let repository = try TemporaryDirectory("repo")
        try FileManager.default.createDirectory(at: repository.file(".git"), withIntermediateDirectories: true)
        let name = #"it's "mine": #1 \ $HOME"#
        let photos = repository.file(name + "/photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try TestImage(width: 40, height: 30, fill: .white).saveJPEG(to: photos.appendingPathComponent("a.jpg"))

        let run = try await CommandRun.gallerygen(["init", name, "--ci", "github"], in: repository.url)
        let gitlab = try await CommandRun.gallerygen(["init", name, "--ci", "gitlab"], in: repository.url)

        #expect(run.status == 0 && gitlab.status == 0, "\(run.standardError)")
        let workflow = try String(contentsOf: repository.file(".github/workflows/gallery.yml"), encoding: .utf8)
        #expect(workflow.contains(#"site: "it's \"mine\": #1 \\ $HOME""#), "\(workflow)")
        let pipeline = try String(contentsOf: repository.file(".gitlab-ci.yml"), encoding: .utf8)
        #expect(pipeline.contains(#"SITE: "it's \"mine\": #1 \\ $$HOME""#), "\(pipeline)")
        let build = try await CommandRun.gallerygen(["build", name], in: repository.url)
        #expect(build.status == 0, "gallery.yml's title is the folder's name, quoted: \(build.standardError)")
    }
}
