import GalleryCore

/// Files for the static hosts a site is published on, beside its pages (`host_files: false` in
/// gallery.yml leaves them out):
///
/// - `.nojekyll`: GitHub Pages serves the folder as it is, without running Jekyll over it.
/// - `_headers` (Netlify, Cloudflare Pages): thumbnails are named by their content, so they are
///   cached for a year as `immutable`; pages, assets, feeds and the manifest change under the same
///   name, so browsers revalidate them. The rules do not overlap: both hosts join the values of a
///   header that two matching rules set.
package enum HostFiles {
    package static let headersPath = "_headers"
    package static let noJekyllPath = ".nojekyll"

    static let immutable = "public, max-age=31536000, immutable"
    static let revalidate = "public, max-age=0, must-revalidate"

    /// `pagePaths`: the site's HTML pages and feeds, relative to the output folder.
    /// `downloads`: the site has `originals/` and `downloads/` (`downloads:`), named by their
    /// content like thumbnails.
    package static func files(pagePaths: [String], downloads: Bool = false) -> [RenderedFile] {
        var revalidated = ["/", "/assets/*", "/" + Manifest.fileName]
        let topLevel = pagePaths.filter { !$0.contains("/") }.sorted()
        revalidated += topLevel.map { "/" + $0 }
        if pagePaths.contains(where: { $0.hasPrefix("photos/") }) { revalidated.append("/photos/*") }
        var text = "# gallerygen: cache rules for Netlify and Cloudflare Pages (host_files: false leaves them out)\n"
        text += "/images/*\n  Cache-Control: \(immutable)\n"
        if downloads {
            for folder in ["/originals/*", "/downloads/*"] { text += "\(folder)\n  Cache-Control: \(immutable)\n" }
        }
        for path in revalidated { text += "\(path)\n  Cache-Control: \(revalidate)\n" }
        return [
            RenderedFile(path: noJekyllPath, contents: []),
            RenderedFile(path: headersPath, contents: Array(text.utf8)),
        ]
    }
}
