import AsyncHTTPClient
import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Synchronization

/// The render and write stages: pages from the photos, then the site written whole.
extension BuildSession {
    func render(feed: FeedDocument, outcomes: [Int: PhotoOutcome]) async throws(BuildError) -> [RenderedFile] {
        var intro = ""
        if let file = layout.introFile {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw BuildError(.intro, "\(relativeName(of: file)): cannot read the intro (is it UTF-8 text?)")
            }
            intro = MarkdownRenderer(allowsRawHTML: config.allowRawHTML).html(from: text)
        }
        let items = feed.photos.map { photo in
            let outcome = outcomes[photo.index]
            return GalleryItem(
                photo: photo, image: outcome?.image.map(publicImage), failure: outcome?.failureMessage,
                sourceName: displayName(of: photo.source))
        }
        let gallery = Gallery(title: config.title, introHTML: intro, baseURL: config.baseURL, items: items)
        do {
            let pages = try await renderer.render(gallery)
            guard config.hostFiles else { return pages }
            return pages + HostFiles.files(pagePaths: pages.map(\.path).filter { !$0.hasPrefix("assets/") })
        } catch {
            throw BuildError(.theme, underlying: error)
        }
    }

    func write(
        pages: [RenderedFile], outcomes: [Int: PhotoOutcome], photos: [Photo], with writer: OutputWriter,
        previous: [String]?
    ) throws(BuildError) -> OutputWriter.Result {
        var files = pages.map { OutputFile(path: $0.path, content: .bytes($0.contents)) }
        var seen: Set<String> = []
        var manifestPhotos: [ManifestPhoto] = []
        for photo in photos {
            let outcome = outcomes[photo.index]
            let image = outcome?.image
            for rendition in image?.renditions ?? [] where seen.insert(rendition.path).inserted {
                files.append(
                    OutputFile(
                        path: publicPath(of: rendition),
                        content: .copy(of: renditions.file(of: rendition), size: rendition.byteCount)
                    )
                )
            }
            var record = ManifestPhoto(
                id: photo.id,
                source: displayName(of: photo.source),
                sha256: outcome?.original?.sha256,
                validators: outcome?.original.map(\.validators).flatMap { $0.isEmpty ? nil : $0 },
                renditions: image.map(publicImage)?.renditions ?? [],
                error: outcome?.failureMessage
            )
            if let image {
                record.width = image.width
                record.height = image.height
                record.placeholder = image.placeholder
                record.hasTransparency = image.hasTransparency
                if config.showsCameraDetails { record.camera = image.camera }
            }
            manifestPhotos.append(record)
        }
        let manifest = Manifest(photos: manifestPhotos, files: files.map(\.path).sorted())
        do {
            return try writer.write(files, manifest: manifest, previous: previous)
        } catch {
            throw BuildError(
                .output,
                "cannot write the site to \(layout.outputDirectory.path) (the output folder is as the previous "
                    + "build left it)",
                underlying: FileWriteFailure(error as NSError))
        }
    }
}

/// A file the build could not write, printed in the system's words.
struct FileWriteFailure: Error, Sendable, CustomStringConvertible {
    let error: NSError

    init(_ error: NSError) {
        self.error = error
    }

    var description: String { BuildSession.describe(fileError: error) }
}
