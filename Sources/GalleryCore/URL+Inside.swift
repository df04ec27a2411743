package import Foundation

extension URL {
    /// Whether this file URL is `folder` or lies under it, symbolic links resolved on both sides
    /// (the part of a path that does not exist yet is taken as written): how a link out of a feed
    /// folder, an output inside a feed folder and a preview request out of the site are told.
    package func isInside(_ folder: URL) -> Bool {
        let inner = resolvedPath
        let outer = folder.resolvedPath
        return inner == outer || inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
    }

    /// The path with every link resolved in the part that exists.
    private var resolvedPath: String {
        var existing = standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        var path = existing.resolvingSymlinksInPath().path
        for component in rest { path += (path.hasSuffix("/") ? "" : "/") + component }
        return path
    }
}
