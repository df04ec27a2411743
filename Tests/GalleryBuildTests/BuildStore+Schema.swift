import BuildStore
import Foundation

@testable import GalleryBuild

extension BuildStore {
    /// The store at `file` with every stage's tables, as a build's cache front opens it.
    static func open(at file: URL) -> Opening {
        open(at: file, schema: BuildCache.schema)
    }

    /// A store in memory with every stage's tables.
    static func inMemory() -> BuildStore {
        inMemory(schema: BuildCache.schema)
    }
}
