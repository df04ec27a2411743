import Foundation
import Testing

@testable import GalleryCore

@Suite struct FeedDocumentTests {
    /// The photos of one album end up holding one array for its path; what each says is unchanged.
    @Test func photosOfOneAlbumShareItsPath() {
        let source = URL(string: "https://example.com/p.jpg")!
        let paths: [[String]] = [["2019", "Iceland"], [], ["2019", "Iceland"], ["Garden"], ["2019", "Iceland"]]
        var document = FeedDocument(
            photos: paths.enumerated().map { index, path in
                Photo(index: index, id: "\(index)", title: "t", source: source, albumPath: path)
            })
        document.shareAlbumPaths()

        #expect(document.photos.map(\.albumPath) == paths)
        func storage(_ index: Int) -> UnsafeRawPointer? {
            document.photos[index].albumPath.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        #expect(storage(0) == storage(2) && storage(2) == storage(4))
        #expect(storage(0) != storage(3))
    }
}
