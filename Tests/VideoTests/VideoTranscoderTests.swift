import Foundation
import GalleryCore
import Synchronization
import TestSupport
import Testing

@testable import Video

@Suite struct VideoTranscoderTests {
    let folder: TemporaryDirectory

    /// What ffmpeg said, quoted the same on every run: no object addresses, no paths of the
    /// machine's (a cached copy's name, a temporary file's).
    @Test func ffmpegsWordsAreTheSameOnEveryRun() {
        let tail = """
            [mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d1c0a3e2c0] moov atom not found
            /tmp/gallerygen-3F2A/cache/v1/blobs/ab/cd.mp4: Invalid data found when processing input
            """
        #expect(
            VideoTranscoder.words(tail)
                == #": ffmpeg said "[mov,mp4,m4a,3gp,3g2,mj2] moov atom not found / (file): Invalid data found when processing input""#
        )
    }

    /// A hung tool is said in words, not as the error's Swift spelling.
    @Test func aHungToolIsSaidInWords() {
        #expect(
            "\(ChildProcess.Failure.timedOut(seconds: 30, errorTail: ""))"
                == "it gave no answer in 30 s and was stopped")
        #expect("\(ChildProcess.Failure.timedOut(seconds: 2.5, errorTail: "x"))".contains("2.5 s"))
    }

    init() throws {
        folder = try TemporaryDirectory("video")
    }

    func transcoder(_ change: (inout VideoSettings) -> Void = { _ in }) throws -> VideoTranscoder {
        var settings = VideoSettings()
        change(&settings)
        return try #require(VideoTranscoder.located(settings: settings), "ffmpeg is installed by `make test-deps`")
    }

    func stream(_ probe: [String: Any], _ type: String) -> [String: Any]? {
        (probe["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == type }
    }

    @Test func aPhoneClipIsReadTurnedWithItsSoundAndTime() throws {
        let clip = try TestClip.make(.phoneMOV, in: folder.url)
        let probe = try transcoder().probe(clip, name: "IMG_0001.MOV")
        #expect(probe.codec == "hevc")
        #expect((probe.codedWidth, probe.codedHeight) == (320, 240))
        #expect(probe.rotation == 90)
        #expect((probe.width, probe.height) == (240, 320))
        #expect(abs(probe.duration - 2) < 0.1)
        #expect(probe.hasAudio)
        #expect(probe.creationTime?.hasPrefix("2024-05-01T10:20:30") == true)
        #expect(!probe.isHDR)
    }

    @Test func theWebVideoIsUprightH264WithFastStartAndNoMetadata() throws {
        let clip = try TestClip.make(.phoneMOV, in: folder.url)
        let transcoder = try transcoder()
        let probe = try transcoder.probe(clip, name: "clip")
        let made = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "abc"], into: folder.url, name: "clip", shouldStop: { false })
        // 720 is larger than the clip: one video at its own size, upright.
        #expect(made.map(\.path) == ["abc-240p.mp4"])
        #expect((made[0].width, made[0].height) == (240, 320))
        let output = folder.file("abc-240p.mp4")
        #expect(made[0].byteCount == Int64(try Data(contentsOf: output).count))
        let answer = try TestClip.probe(output)
        let video = try #require(stream(answer, "video"))
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["width"] as? Int == 240 && video["height"] as? Int == 320)
        #expect(video["side_data_list"] == nil, "no turn left for the player to apply")
        #expect(stream(answer, "audio")?["codec_name"] as? String == "aac")
        let tags = ((answer["format"] as? [String: Any])?["tags"] as? [String: String]) ?? [:]
        #expect(tags["location"] == nil && tags["creation_time"] == nil, "\(tags)")
        // `+faststart`: the index (moov) comes before the media (mdat).
        let bytes = try Data(contentsOf: output)
        let moov = try #require(bytes.range(of: Data("moov".utf8)))
        let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)
        #expect(bytes.range(of: Data("59.9139".utf8)) == nil, "the place is nowhere in the file")
        // The same clip, the same bytes: a rebuild elsewhere makes the same file.
        let again = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "def"], into: folder.url, name: "clip", shouldStop: { false })
        #expect(try Data(contentsOf: folder.file(again[0].path)) == bytes)
    }

    @Test func heightsAreTheShorterSideAndNeverLargerThanTheClip() throws {
        let transcoder = try transcoder { $0.heights = [120, 720, 180] }
        let clip = try TestClip.make(.plainMP4, in: folder.url)
        let probe = try transcoder.probe(clip, name: "clip")
        #expect(transcoder.outputSizes(for: probe).map { [$0.width, $0.height] } == [[160, 120], [240, 180]])
        var portrait = probe
        portrait.rotation = 270
        #expect(transcoder.outputSizes(for: portrait).map { [$0.width, $0.height] } == [[120, 160], [180, 240]])
    }

    @Test func aSilentClipAndSoundTurnedOffMakeSilentVideosAndWebMIsOfferedFirst() throws {
        let transcoder = try transcoder {
            $0.webm = true
            $0.audio = false
        }
        #expect(transcoder.recipe.formats == [.webm, .mp4])
        for kind in [TestClip.Kind.silentMP4, .plainMP4] {
            let clip = try TestClip.make(kind, in: folder.url)
            let probe = try transcoder.probe(clip, name: "clip")
            #expect(probe.hasAudio == (kind == .plainMP4))
            let made = try transcoder.transcode(
                clip, probe: probe, stems: [.mp4: "m\(kind)", .webm: "w\(kind)"], into: folder.url, name: "clip",
                shouldStop: { false })
            #expect(made.map(\.format) == [.webm, .mp4])
            for video in made {
                let answer = try TestClip.probe(folder.file(video.path))
                #expect(stream(answer, "audio") == nil)
                #expect(
                    stream(answer, "video")?["codec_name"] as? String == (video.format == .webm ? "vp9" : "h264"))
            }
        }
    }

    @Test func aSqueezedClipIsShownAtItsDisplayShape() async throws {
        let transcoder = try transcoder()
        let clip = folder.file("hdv.mp4")
        let run = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=240x180:rate=25:duration=1"]
                + ["-vf", "setsar=4/3", "-c:v", "libx264", "-pix_fmt", "yuv420p", clip.path])
        #expect(run.status == 0, "\(run.standardError)")
        let probe = try transcoder.probe(clip, name: "hdv.mp4")
        #expect((probe.codedWidth, probe.width, probe.height) == (240, 320, 180))
        let made = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "a"], into: folder.url, name: "hdv.mp4", shouldStop: { false })
        #expect(made.map { [$0.width, $0.height] } == [[320, 180]])
        let video = try #require(stream(try TestClip.probe(folder.file(made[0].path)), "video"))
        #expect(video["sample_aspect_ratio"] as? String == "1:1" && video["width"] as? Int == 320)
        let poster = folder.file("poster.png")
        try transcoder.writePoster(of: clip, probe: probe, to: poster, name: "hdv.mp4")
        let bytes = try Data(contentsOf: poster)
        #expect(bytes[16..<20].reduce(0) { $0 << 8 | Int($1) } == 320)
    }

    @Test func theClipsOwnVideoIsMadeNeverACoverPictureStoredBeforeIt() async throws {
        let transcoder = try transcoder()
        let plain = try TestClip.make(.plainMP4, in: folder.url)
        let cover = folder.file("cover.png")
        try TestImage(width: 64, height: 64, fill: TestImage.Color(200, 30, 30)).savePNG(to: cover)
        let covered = folder.file("covered.mp4")
        let run = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-nostdin", "-v", "error", "-y", "-i", cover.path, "-i", plain.path, "-map", "0", "-map", "1"]
                + ["-c", "copy", "-disposition:v:0", "attached_pic", covered.path])
        #expect(run.status == 0, "\(run.standardError)")
        let probe = try transcoder.probe(covered, name: "covered.mp4")
        #expect((probe.width, probe.height) == (320, 240), "the clip's stream, not the 64x64 cover")
        let made = try transcoder.transcode(
            covered, probe: probe, stems: [.mp4: "c"], into: folder.url, name: "covered.mp4", shouldStop: { false })
        let output = try TestClip.probe(folder.file(made[0].path))
        let video = try #require(stream(output, "video"))
        #expect(video["width"] as? Int == 320 && video["height"] as? Int == 240, "\(video)")
        #expect(Int(video["nb_frames"] as? String ?? "") ?? 0 > 40, "the moving clip, not a still picture")
    }

    @Test func aClipWhoseHeaderHidesItsLengthIsStillCutAtTheLimit() throws {
        let cut = try transcoder { $0.maxDuration = 1 }
        let clip = try TestClip.make(.plainMP4, in: folder.url)
        var probe = try transcoder().probe(clip, name: "clip.mp4")
        probe.duration = 0  // as a header that says nothing of it would read
        let made = try cut.transcode(
            clip, probe: probe, stems: [.mp4: "t"], into: folder.url, name: "clip.mp4", shouldStop: { false })
        let output = try TestClip.probe(folder.file(made[0].path))
        let duration = Double((output["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(duration > 0.5 && duration < 1.2, "\(duration)")
    }

    @Test func aVariableFrameRateClipKeepsItsLength() throws {
        let transcoder = try transcoder()
        let clip = try TestClip.make(.variableFrameRate, in: folder.url)
        let probe = try transcoder.probe(clip, name: "vfr.mp4")
        let made = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "v"], into: folder.url, name: "vfr.mp4", shouldStop: { false })
        let output = try TestClip.probe(folder.file(made[0].path))
        let duration = Double((output["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - probe.duration) < 0.2, "\(duration) against \(probe.duration)")
    }

    @Test(arguments: [TestClip.Kind.hlgMP4, .pqMP4]) func anHDRClipIsToneMappedToSDR(_ kind: TestClip.Kind) throws {
        let transcoder = try transcoder()
        let clip = try TestClip.make(kind, in: folder.url)
        let probe = try transcoder.probe(clip, name: "hlg.mp4")
        #expect(probe.isHDR)
        let made = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "h"], into: folder.url, name: "hlg.mp4", shouldStop: { false })
        let video = try #require(stream(try TestClip.probe(folder.file(made[0].path)), "video"))
        #expect(!["arib-std-b67", "smpte2084"].contains(video["color_transfer"] as? String ?? ""))
        let poster = folder.file("poster.png")
        try transcoder.writePoster(of: clip, probe: probe, to: poster, name: "hlg.mp4")
        #expect(try Data(contentsOf: poster).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func thePosterIsUprightPNG() throws {
        let transcoder = try transcoder()
        let clip = try TestClip.make(.phoneMOV, in: folder.url)
        let probe = try transcoder.probe(clip, name: "clip")
        let poster = folder.file("poster.png")
        try transcoder.writePoster(of: clip, probe: probe, to: poster, name: "clip")
        let bytes = try Data(contentsOf: poster)
        // PNG's IHDR: width and height, big-endian, at 16 and 20.
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect((width, height) == (240, 320))
    }

    @Test func aBrokenClipALongOneAndASlowOneAreErrorsThatSaySo() throws {
        let broken = try TestClip.make(.truncated, in: folder.url)
        #expect {
            let transcoder = try transcoder()
            let probe = try transcoder.probe(broken, name: "broken.mp4")
            _ = try transcoder.transcode(
                broken, probe: probe, stems: [.mp4: "b"], into: folder.url, name: "broken.mp4", shouldStop: { false })
        } throws: { error in
            let error = error as? VideoError
            return (error?.code == .unreadable || error?.code == .transcode)
                && error?.message.contains("broken.mp4") == true
        }
        let clip = try TestClip.make(.plainMP4, in: folder.url)
        #expect {
            _ = try transcoder { $0.maxDuration = 1 }.probe(clip, name: "clip.mp4")
        } throws: { error in
            (error as? VideoError)?.code == .overLimit
                && (error as? VideoError)?.message.contains("over video.max_duration (1 s)") == true
        }
        #expect {
            _ = try transcoder { $0.maxPixels = 1000 }.probe(clip, name: "clip.mp4")
        } throws: { error in (error as? VideoError)?.message.contains("320x240, over video.max_pixels") == true }
        let slow = try transcoder { $0.timeLimit = 0.05 }
        let probe = try slow.probe(clip, name: "clip.mp4")
        #expect {
            _ = try slow.transcode(
                clip, probe: probe, stems: [.mp4: "s"], into: folder.url, name: "clip.mp4", shouldStop: { false })
        } throws: { error in
            (error as? VideoError)?.code == .transcode
                && (error as? VideoError)?.message.contains("ran past video.time_limit") == true
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("s-240p.mp4").path), "nothing half-written")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).allSatisfy {
                !AtomicFile.isTemporaryName($0)
            })
        #expect {
            _ = try transcoder().transcode(
                clip, probe: probe, stems: [.mp4: "t"], into: folder.url, name: "clip.mp4", shouldStop: { true })
        } throws: { error in (error as? VideoError)?.code == .stopped }
    }
}

@Suite struct ProgressReaderTests {
    @Test func linesSplitAcrossReadsAreReadWholeAsFractionsOfTheClip() {
        let heard = Mutex<[Double]>([])
        let reader = ProgressReader(duration: 4) { fraction in heard.withLock { $0.append(fraction) } }
        reader.read(Data("frame=10\nout_time_us=10".utf8))
        reader.read(Data("00000\nspeed=1x\nout_time_us=N/A\nout_ti".utf8))
        reader.read(Data("me_us=3000000\nprogress=continue\nout_time_us=9000000\n".utf8))
        #expect(heard.withLock { $0 } == [0.25, 0.75, 1])
    }

    @Test func aTranscodeTellsItsProgressUpToTheClipsLength() throws {
        let folder = try TemporaryDirectory("progress")
        let transcoder = try #require(VideoTranscoder.located(settings: VideoSettings()), "ffmpeg is installed")
        let clip = try TestClip.make(.plainMP4, in: folder.url)
        let probe = try transcoder.probe(clip, name: "clip")
        let heard = Mutex<[Double]>([])
        _ = try transcoder.transcode(
            clip, probe: probe, stems: [.mp4: "p"], into: folder.url, name: "clip", shouldStop: { false },
            progress: { seconds in heard.withLock { $0.append(seconds) } })
        let seconds = heard.withLock { $0 }
        #expect(!seconds.isEmpty && seconds == seconds.sorted(), "\(seconds)")
        #expect(seconds.last == probe.duration)
    }
}
