import AsyncHTTPClient
import Feed
package import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Synchronization

/// The render and write stages: pages from the photos, then the site written whole.
extension BuildSession {
    /// What the render stage leaves for the write stage.
    struct RenderedSite {
        /// Every page and asset, staged or left as it was.
        var paths: [String] = []
        /// The grid and photo pages rendered by this build, with their fingerprints.
        var rendered: [UnchangedPage] = []
        /// The grid and photo pages found in place as this build would have written them.
        var kept: [UnchangedPage] = []
        /// What the pages were made from (``RenderedPages``).
        var sources: PageFingerprint?
        /// The record the pages were checked against, to be replaced by one of this build.
        var record: RenderedPages
        /// The SHA-256 of the intro as it was read (nil: no intro).
        var introSHA256: String?
        /// The albums' zips (`downloads:`), made from the photos' downloads once they are in place.
        var zips: [OutputFile] = []
    }

    /// Renders the pages and stages each chunk as it comes (a gallery of 100,000 photos never
    /// holds all its pages). A grid or photo page found in place as this build would write it
    /// (``RenderedPages``, read from the store unless a step before read it: `recorded`) is not
    /// rendered again.
    func render(
        _ buildItems: [BuildItem], albums: [[String]: AlbumNote], recorded: RenderedPages? = nil,
        into staging: OutputWriter.Staging
    ) async throws(BuildError) -> RenderedSite {
        var intro = ""
        var introSHA256: String?
        if let file = layout.introFile {
            let data: Data
            do {
                data = try PlainFile.read(file, limit: MarkdownRenderer.maxInputBytes)
            } catch {
                if case .tooLarge = error.kind {
                    throw BuildError(
                        .intro,
                        "\(relativeName(of: file)): the intro \(error); an intro is a few paragraphs "
                            + "(at most \(MarkdownRenderer.maxInputBytes / 1024) KB): shorten it")
                }
                throw BuildError(.intro, "\(relativeName(of: file)): cannot read the intro: it \(error)")
            }
            introSHA256 = sha256Hex(of: data)
            guard let text = String(data: data, encoding: .utf8) else {
                throw BuildError(.intro, "\(relativeName(of: file)): cannot read the intro: it is not UTF-8 text")
            }
            intro = MarkdownRenderer(allowsRawHTML: config.allowRawHTML).html(from: text)
        }
        let captions = MarkdownRenderer(allowsRawHTML: false)
        let items = GalleryItem.ordered(
            buildItems.map { item in
                GalleryItem(
                    photo: item.photo, image: item.outcome?.image,
                    failure: item.outcome?.failureMessage.map { redaction.said(layout.publishedMessage($0)) },
                    sourceName: displayName(of: item.photo.source),
                    captionHTML: item.photo.captionMarkdown.map { captions.html(from: $0) },
                    download: item.download)
            }, by: config.order)
        let albums = albums.mapValues { note in
            AlbumDetails(
                title: note.title, descriptionHTML: note.descriptionMarkdown.map { captions.html(from: $0) },
                cover: note.cover, order: note.order)
        }
        var gallery = Gallery(
            title: config.title, introHTML: intro, baseURL: config.baseURL, items: items, albums: albums)
        let zips = planAlbumZips(of: &gallery)
        let previous: RenderedPages
        if let recorded {
            previous = recorded
        } else {
            previous = await RenderedPages.load(from: store, outputDirectory: layout.outputDirectory)
        }
        var site = RenderedSite(record: previous, introSHA256: introSHA256, zips: zips)
        func stage(_ files: [RenderedFile]) throws(BuildError) {
            do {
                try staging.stage(files.map { ($0.path, $0.contents) })
            } catch {
                throw outputError(error as NSError)
            }
            site.paths += files.map(\.path)
            site.rendered += files.compactMap { file in
                file.fingerprint.map { UnchangedPage(path: file.path, fingerprint: $0) }
            }
        }
        do {
            site.sources = try await renderer.render(gallery, chunk: Self.renderChunk, reusing: previous.reuse) {
                (chunk) throws(BuildError) in
                try stage(chunk.files)
                site.paths += chunk.unchanged.map(\.path)
                site.kept += chunk.unchanged
            }
        } catch {
            switch error {
            case .theme(let error): throw BuildError(.theme, underlying: error)
            case .sink(let error): throw error
            }
        }
        if config.hostFiles {
            try stage(
                HostFiles.files(
                    pagePaths: site.paths.filter { !$0.hasPrefix("assets/") },
                    downloads: !site.zips.isEmpty || config.downloads == .original))
        }
        return site
    }

    /// Pages rendered and staged at a time (about 2-5 MB of HTML).
    static let renderChunk = 1024

    func outputError(_ error: NSError) -> BuildError {
        BuildError(
            .output,
            "cannot write the site to \(layout.outputDirectory.path) (the output folder is as the previous "
                + "build left it)",
            underlying: FileWriteFailure(error))
    }

    /// The thumbnails and the manifest, then everything staged renamed into place. The manifest's
    /// records are made as it is written, a part at a time, never all held at once.
    /// `record` is the last build's ``RenderedPages``: a thumbnail it stamped and that is still
    /// as stamped is not read. Returns what was written, and the thumbnails to record.
    func write(
        pagePaths: [String], items: [BuildItem], downloads: [OutputFile] = [], into staging: OutputWriter.Staging,
        previous: [String]?, record: RenderedPages
    ) async throws(BuildError) -> (OutputWriter.Result, thumbnails: (checked: [UnchangedPage], kept: [UnchangedPage])) {
        var files: [OutputFile] = []
        var seen: Set<String> = []
        for item in items {
            let image = item.outcome?.image
            for rendition in (image?.renditions ?? []) + (image?.motion ?? [])
            where seen.insert(rendition.path).inserted {
                files.append(
                    OutputFile(
                        path: rendition.path,
                        content: .copy(
                            of: renditions.file(of: rendition), size: rendition.byteCount, sha256: rendition.sha256)
                    )
                )
            }
        }
        // After the thumbnails: an album's zip is made from its photos' files in place.
        files += downloads
        let manifestFiles = (pagePaths + files.map(\.path)).sorted()
        let showsCamera = config.showsCameraDetails
        let locationPlaces = config.location.places
        let signingKey = signingKey
        let manifestRecord: @Sendable (BuildItem) -> ManifestPhoto = { [self] item in
            let (photo, outcome) = (item.photo, item.outcome)
            let image = outcome?.image
            var record = ManifestPhoto(
                id: photo.id,
                source: displayName(of: photo.source),
                sha256: outcome?.original?.sha256,
                validators: outcome?.original.map(\.validators).flatMap { $0.isEmpty ? nil : $0 },
                renditions: image?.renditions ?? [],
                error: outcome?.failureMessage.map { redaction.said(layout.publishedMessage($0)) }
            )
            if let image {
                record.width = image.width
                record.height = image.height
                record.placeholder = image.placeholder
                record.hasTransparency = image.hasTransparency
                record.video = image.video
                if showsCamera { record.camera = image.camera }
                // What the photo says about itself, as far as its pages show it (a field the feed
                // or a sidecar gives instead is left out): a build seeded from the site shows it
                // without the original.
                var winner = photo.stated
                if photo.captionMarkdown != nil { winner.description = "" }
                record.metadata = image.metadata.map { said in
                    var shown = said.shown(under: winner)
                    // The place as the pages show it: rounded, or not at all (`location: off`).
                    shown.location = locationPlaces.flatMap { shown.location?.rounded(to: $0) }
                    return shown
                }
            }
            return signingKey.map { record.signed(with: $0) } ?? record
        }
        do {
            let thumbnails = try staging.copy(files, recorded: record.recorded)
            let result = try await staging.finish(files: manifestFiles, previous: previous) { sink in
                try await Manifest.encode(files: manifestFiles, photos: items, record: manifestRecord, into: sink)
            }
            return (result, thumbnails)
        } catch {
            staging.abandon()
            throw outputError(error as NSError)
        }
    }
}

/// A file the build could not write, printed in the system's words.
package struct FileWriteFailure: Error, Sendable, CustomStringConvertible {
    let error: NSError

    package init(_ error: NSError) {
        self.error = error
    }

    package var description: String { BuildSession.describe(fileError: error) }
}
