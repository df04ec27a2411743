import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Video

/// Clips phones recorded (Fixtures/README.md says where each came from): turned, HDR, with a
/// metadata track before the video, and with the place they were recorded.
@Suite struct RealClipTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var shown: (width: Int, height: Int)
        var isHDR: Bool
        /// How the file writes its place, to look for in the output.
        var place: String
        var taken: (local: String, offset: String)

        var testDescription: String { file }
    }

    static let clips = [
        Expected(
            file: "iphone14pro-hlg-rot90.mov", shown: (720, 1280), isHDR: true, place: "+51.5334-000.1255",
            taken: ("2023-05-09T12:41:46", "+01:00")),
        Expected(
            file: "android-hevc-rot90.mp4", shown: (1080, 1920), isHDR: false, place: "+51.5932-0.2431",
            taken: ("2023-04-28T17:52:17", "Z")),
        Expected(
            file: "android14-hlg.mp4", shown: (1920, 1080), isHDR: true, place: "+51.5335-000.1261",
            taken: ("2024-02-09T20:23:48", "Z")),
    ]

    @Test(arguments: clips) func aPhoneClipBecomesAnUprightSDRVideoWithoutItsPlace(_ expected: Expected) throws {
        let folder = try TemporaryDirectory("real-clip")
        let transcoder = try #require(
            VideoTranscoder.located(settings: VideoSettings()), "ffmpeg is installed by `make test-deps`")
        let clip = Self.fixtures.appendingPathComponent(expected.file)
        #expect(try Data(contentsOf: clip).range(of: Data(expected.place.utf8)) != nil, "the original has its place")
        let probe = try transcoder.probe(clip, name: expected.file)
        #expect((probe.width, probe.height) == expected.shown)
        #expect(probe.isHDR == expected.isHDR)
        #expect(probe.hasAudio)
        #expect(probe.duration > 0 && probe.duration < 1)
        #expect(probe.taken?.local == expected.taken.local && probe.taken?.offset == expected.taken.offset)
        let made = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "real"], into: folder.url, name: expected.file, shouldStop: { false })
        let portrait = expected.shown.height > expected.shown.width
        #expect(made.map { [$0.width, $0.height] } == [portrait ? [720, 1280] : [1280, 720]])
        let output = folder.file(made[0].path)
        let answer = try TestClip.probe(output)
        let streams = answer["streams"] as? [[String: Any]] ?? []
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["pix_fmt"] as? String == "yuv420p")
        #expect(video["width"] as? Int == made[0].width && video["height"] as? Int == made[0].height)
        #expect(video["side_data_list"] == nil)
        #expect(!["arib-std-b67", "smpte2084"].contains(video["color_transfer"] as? String ?? ""))
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio"], "no metadata track carried over")
        #expect(try Data(contentsOf: output).range(of: Data(expected.place.utf8)) == nil)
        #expect(try Data(contentsOf: output).range(of: Data("Apple".utf8)) == nil)
        // A clip shorter than a second has its poster from its middle.
        let poster = folder.file("poster.png")
        try transcoder.writePoster(of: clip, probe: probe, to: poster, name: expected.file)
        let bytes = try Data(contentsOf: poster)
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect((width, height) == expected.shown)
    }
}
