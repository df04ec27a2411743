import Foundation
import Testing

@testable import GalleryCore

/// ``ProcessedImage`` keeps its fields in a shared box: a copy is a reference, and a change to
/// one copy must never show in another, nor change the form it is read and written in.
@Suite struct ProcessedImageTests {
    static let image = ProcessedImage(
        width: 640, height: 480,
        renditions: [
            Rendition(format: .webp, width: 480, height: 360, path: "ab-480.webp", byteCount: 9_000),
            Rendition(format: .jpeg, width: 480, height: 360, path: "ab-480.jpg", byteCount: 12_000),
        ],
        placeholder: Placeholder(color: "#102030", dataURI: "data:image/webp;base64,UklGRg=="),
        camera: CameraDetails(camera: "X100V", iso: "ISO 200")
    )

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = Self.image
        var copy = original
        copy.width = 1
        copy.height = 2
        copy.renditions[0].path = "images/ab-480.webp"
        copy.placeholder.color = "#ffffff"
        copy.hasTransparency = true
        copy.camera = nil
        copy.metadata = PhotoMetadata(title: "Changed")
        copy.video = VideoDetails(duration: 3, hasAudio: false, recipe: "r")
        copy.motion = [Rendition(format: .mp4, width: 480, height: 360, path: "m.mp4", byteCount: 1)]

        #expect(original.width == 640 && original.height == 480)
        #expect(original.renditions.map(\.path) == ["ab-480.webp", "ab-480.jpg"])
        #expect(original.placeholder.color == "#102030")
        #expect(!original.hasTransparency)
        #expect(original.camera == CameraDetails(camera: "X100V", iso: "ISO 200"))
        #expect(original.metadata == nil && original.video == nil && original.motion.isEmpty)
        #expect(original == Self.image && copy != original)
        #expect(copy.width == 1 && copy.height == 2)
        #expect(copy.renditions.map(\.path) == ["images/ab-480.webp", "ab-480.jpg"])
        #expect(copy.placeholder.color == "#ffffff" && copy.placeholder.dataURI == original.placeholder.dataURI)
        #expect(copy.hasTransparency && copy.camera == nil)
        #expect(copy.motion.count == 1 && copy.video?.duration == 3 && copy.metadata?.title == "Changed")
        #expect(String(describing: copy).contains("width: 1"), "printed with its fields")
    }

    @Test func equalFieldsInTwoBoxesAreEqualAndHashAlike() {
        let twin = ProcessedImage(
            width: 640, height: 480, renditions: Self.image.renditions, placeholder: Self.image.placeholder,
            camera: Self.image.camera)
        #expect(twin == Self.image)
        #expect(Set([twin, Self.image]).count == 1)
        var other = twin
        other.motion = [Rendition(format: .mp4, width: 1, height: 1, path: "m.mp4", byteCount: 1)]
        #expect(other != twin)
    }

    /// The record's form is the unboxed one's: the same keys, the motion never written (it is
    /// not part of a set), and a record without it read as none.
    @Test func readAndWrittenAsBefore() throws {
        var image = Self.image
        image.motion = [Rendition(format: .mp4, width: 480, height: 360, path: "m.mp4", byteCount: 1)]
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(image)) as? [String: Any])
        #expect(Set(object.keys) == ["width", "height", "renditions", "placeholder", "transparent", "camera"])
        let read = try JSONDecoder().decode(ProcessedImage.self, from: JSONEncoder().encode(image))
        #expect(read == Self.image && read.motion.isEmpty)
    }
}
