import GalleryCore
import Testing

@testable import GalleryBuild

/// A clip's set made elsewhere (the remote cache, a seed) is taken only with exactly the names
/// this build gives a clip's poster and videos, its recipe, and a length the pages can show.
@Suite struct ClipSetCheckTests {
    let recipe = VideoRecipe(settings: VideoSettings(), ffmpegVersion: "5.1")
    let stems: [ImageFormat: String] = [.webp: "p"]
    let videoStems: [ImageFormat: String] = [.mp4: "v"]

    func clip(duration: Double = 7, recipe fingerprint: String? = nil, video name: String = "v-720p.mp4")
        -> ProcessedImage
    {
        var image = ProcessedImage(
            width: 1920, height: 1080,
            renditions: [
                Rendition(format: .webp, width: 320, height: 180, path: "p-320.webp", byteCount: 1),
                Rendition(format: .mp4, width: 1280, height: 720, path: name, byteCount: 1),
            ],
            placeholder: Placeholder(color: "#000000", dataURI: "data:image/webp;base64,AA=="))
        image.video = VideoDetails(duration: duration, hasAudio: true, recipe: fingerprint ?? recipe.fingerprint)
        return image
    }

    func takes(_ image: ProcessedImage, withFFmpeg: Bool = true) -> Bool {
        ThumbnailSetCheck.hasExpectedNames(
            image, stems: stems, widths: [320],
            video: { withFFmpeg ? (recipe, videoStems) : nil })
    }

    @Test func aClipsSetIsTakenOnlyAsThisBuildWouldMakeIt() {
        #expect(takes(clip()))
        #expect(!takes(clip(), withFFmpeg: false), "without ffmpeg the recipe cannot be known")
        #expect(!takes(clip(recipe: "1080|mp4|sound|ffmpeg 5.1")), "other settings")
        #expect(!takes(clip(video: "v-1080p.mp4")), "a name this build would not give")
        #expect(!takes(clip(video: "w-720p.mp4")), "another stem")
        for duration in [-1, 1e300, .infinity, .nan, 86_401] {
            #expect(!takes(clip(duration: duration)), "a length no page can show: \(duration)")
        }
    }
}
