import GalleryCore
import Testing

@testable import Rendering

@Suite struct ClipViewModelTests {
    static func clip() -> ProcessedImage {
        var image = ProcessedImage(
            width: 1920, height: 1080,
            renditions: [
                Rendition(format: .webp, width: 480, height: 270, path: "images/p-480.webp", byteCount: 1),
                Rendition(format: .mp4, width: 1280, height: 720, path: "images/m-720p.mp4", byteCount: 1),
                Rendition(format: .mp4, width: 1920, height: 1080, path: "images/m-1080p.mp4", byteCount: 1),
                Rendition(format: .webm, width: 1920, height: 1080, path: "images/w-1080p.webm", byteCount: 1),
                Rendition(format: .webm, width: 1280, height: 720, path: "images/w-720p.webm", byteCount: 1),
            ],
            placeholder: Placeholder(color: "#000000", dataURI: "data:image/webp;base64,AA=="))
        image.video = VideoDetails(duration: 3725.4, hasAudio: true, recipe: "r")
        return image
    }

    @Test func thePageOffersEachFormatLargestFirstEachButTheSmallestForWideWindows() throws {
        let clip = try #require(ClipViewModel(image: Self.clip(), prefix: "../"))
        #expect(
            clip.pageSources.map { [$0.src, $0.media ?? "-"] } == [
                ["../images/w-1080p.webm", "(min-width: 1920px)"], ["../images/w-720p.webm", "-"],
                ["../images/m-1080p.mp4", "(min-width: 1920px)"], ["../images/m-720p.mp4", "-"],
            ])
        #expect(
            clip.viewerList
                == "../images/w-720p.webm video/webm 720, ../images/w-1080p.webm video/webm 1080, "
                + "../images/m-720p.mp4 video/mp4 720, ../images/m-1080p.mp4 video/mp4 1080")
        #expect(clip.largestMP4?.src == "../images/m-1080p.mp4")
        #expect((clip.duration, clip.durationISO) == ("1:02:05", "PT3725S"))
    }

    @Test func aPhotoIsNoClip() {
        var photo = Self.clip()
        photo.video = nil
        #expect(ClipViewModel(image: photo, prefix: "") == nil)
        #expect(photo.images.count == 5, "a photo's renditions are all its images")
    }
}
