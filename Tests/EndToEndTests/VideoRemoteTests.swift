import Foundation
import GalleryCore
import TestSupport
import Testing

/// Clips through the remote cache tier (nginx with WebDAV PUT): a machine with an empty cache
/// takes a clip's poster and videos from the tier instead of transcoding it, and a build spread
/// over shards transcodes each clip once.
@Suite(.serialized, .timeLimit(.minutes(5))) struct VideoRemoteTests {
    /// A folder site of a photo and two clips, with `remote` as its remote cache; `photos` are
    /// taken from another site's folder when given (the same files on another machine).
    func site(remote: String, photosFrom other: FixtureSite? = nil) throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Clips\nfeed: photos\nimages:\n  widths: [64]\nremote_cache: \(remote)\n", to: "gallery.yml")
        let photos = site.folder.file("photos")
        if let other {
            try FileManager.default.copyItem(at: other.folder.file("photos"), to: photos)
        } else {
            _ = try WhatPhotosSayTests.photo(site, "a.jpg", shade: 40)
            try TestClip.make(.phoneMOV, named: "b.mov", in: photos)
            try TestClip.make(.silentMP4, named: "c.mp4", in: photos)
        }
        return site
    }

    func build(_ site: FixtureSite, _ arguments: [String] = []) async throws -> [String: Any] {
        let report = site.folder.file("report-\(UUID().uuidString.prefix(6)).json")
        let run = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path] + arguments)
        #expect(run.status == 0, "\(run.standardError)")
        return (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]) ?? [:]
    }

    func videos(_ site: FixtureSite) throws -> [String: Data] {
        try site.snapshot().filter { $0.key.hasSuffix(".mp4") }.mapValues(\.0)
    }

    @Test func aFreshMachineTakesTheClipsFromTheRemoteAndTranscodesNothing() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let nginx = try await NginxStore.started()
        let first = try site(remote: nginx.url)
        let made = try await build(first)
        #expect((made["counts"] as? [String: Any])?["processed"] as? Int == 3)
        #expect((made["warnings"] as? [String]) == [])
        let setPuts = nginx.log.filter { $0.method == "PUT" && $0.path.contains("/v1/sets/") }
        #expect(setPuts.count == 3, "the photo's set and each clip's: \(setPuts.map(\.path))")

        let fresh = try site(remote: nginx.url, photosFrom: first)
        let taken = try await build(fresh)
        let counts = taken["counts"] as? [String: Any] ?? [:]
        #expect(counts["processed"] as? Int == 0, "\(counts)")
        #expect(counts["videos"] as? Int == 2)
        #expect(counts["footage_seconds"] as? Double == 0)
        let expected = try videos(first)
        #expect(expected.count == 2)
        #expect(try videos(fresh) == expected, "the same videos, byte for byte")
    }

    @Test func shardsTranscodeEachClipOnceAndTheFinalBuildNone() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let nginx = try await NginxStore.started()
        let origin = try site(remote: nginx.url)
        let shards = try (1...2).map { _ in try site(remote: nginx.url, photosFrom: origin) }
        var processed = 0
        for (offset, shard) in shards.enumerated() {
            let report = try await build(shard, ["--shard", "\(offset + 1)/2"])
            processed += (report["counts"] as? [String: Any])?["processed"] as? Int ?? 0
        }
        #expect(processed == 3, "each set made by one shard")
        let final = try site(remote: nginx.url, photosFrom: origin)
        let counts = try await build(final)["counts"] as? [String: Any] ?? [:]
        #expect(counts["processed"] as? Int == 0, "\(counts)")
        #expect(try videos(final).count == 2)
    }
}
