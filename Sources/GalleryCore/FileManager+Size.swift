import Foundation

extension FileManager {
    /// The size in bytes of the file at `url`, or nil when there is none.
    package func sizeOfItem(at url: URL) -> Int64? {
        ((try? attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value
    }
}
