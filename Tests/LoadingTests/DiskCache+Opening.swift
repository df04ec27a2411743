import BuildStore
import Foundation
import Loading

extension DiskCache {
    /// The cache in `directory` opened as a build's cache front (GalleryBuild's `BuildCache`)
    /// opens it, its lock aside: `v1`, and its store with the loader's table.
    static func open(directory: URL) throws -> DiskCache {
        let root = directory.appendingPathComponent("v1")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let opening = BuildStore.open(
            at: root.appendingPathComponent("store.sqlite"), schema: StoreSchema([URLRecordTable.self]))
        return try DiskCache(root: root, store: opening.store)
    }

    /// Closes its store, as the build's front does when the build ends.
    func close() {
        store.close()
    }
}
