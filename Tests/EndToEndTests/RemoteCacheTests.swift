import Foundation
import Loading
import Synchronization
import TestSupport
import Testing

/// The remote cache tier with nginx (WebDAV PUT) as the store and gallerygen run as separate
/// processes, as separate machines would run it: sharded builds, a fresh machine with a warm
/// remote, and a remote that is down, killed, failing or holding damaged objects.
@Suite(.timeLimit(.minutes(5))) struct RemoteCacheTests {
    /// A site of the upstream's photos; `remote` is its `remote_cache:`.
    func site(_ upstream: Upstream, remote: String?) throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        var configuration = "title: Remote\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n"
        if let remote { configuration += "remote_cache: \(remote)\n" }
        try site.folder.write(configuration, to: "gallery.yml")
        return site
    }

    struct Run: Sendable {
        var command: CommandRun
        /// The `--report` JSON.
        var reportData: Data

        var report: [String: Any] {
            (try? JSONSerialization.jsonObject(with: reportData)) as? [String: Any] ?? [:]
        }

        var counts: [String: Int] { report["counts"] as? [String: Int] ?? [:] }
        var remote: [String: Any] { report["remote_cache"] as? [String: Any] ?? [:] }
        var warnings: [String] { report["warnings"] as? [String] ?? [] }
    }

    func build(_ site: FixtureSite, _ arguments: [String] = [], environment: [String: String] = [:]) async throws
        -> Run
    {
        let report = site.folder.file("report-\(UUID().uuidString.prefix(6)).json")
        let command = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path] + arguments, environment: environment)
        return Run(command: command, reportData: try Data(contentsOf: report))
    }

    /// The site a single machine without a remote cache builds from the same feed.
    func singleMachineOutput(_ upstream: Upstream) async throws -> [String: Data] {
        let single = try site(upstream, remote: nil)
        let run = try await build(single)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        upstream.server.resetCounts()
        return try single.snapshot().mapValues(\.0)
    }

    /// Full transfers of each photo (requests without validators), by path.
    func downloads(_ upstream: Upstream) -> [String: Int] {
        Dictionary(upstream.photoRequests.filter { !$0.isConditional }.map { ($0.path, 1) }, uniquingKeysWith: +)
    }

    @Test func fourShardsAtOnceThenAFinalBuildThatEncodesNothing() async throws {
        let upstream = try await Upstream(count: 12)
        let expected = try await singleMachineOutput(upstream)
        let nginx = try await NginxStore.started()

        let shards = try (1...4).map { _ in try site(upstream, remote: nginx.url) }
        let runs = try await withThrowingTaskGroup(of: Run.self) { group in
            for (offset, shard) in shards.enumerated() {
                group.addTask { try await build(shard, ["--shard", "\(offset + 1)/4"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs {
            #expect(run.command.status == 0, "\(run.command.standardError)")
            #expect(run.warnings.isEmpty, "\(run.warnings)")
            #expect(run.counts["photos"] == 3, "12 photos dealt out evenly: \(run.counts)")
        }
        #expect(runs.map { $0.counts["processed"] ?? 0 }.reduce(0, +) == 12)
        // No shard wrote pages.
        for shard in shards { #expect(!FileManager.default.fileExists(atPath: shard.folder.file("public").path)) }

        let downloaded = downloads(upstream)
        #expect(downloaded.count == 12 && downloaded.values.allSatisfy { $0 == 1 }, "each photo once: \(downloaded)")
        let setPuts = nginx.log.filter { $0.method == "PUT" && $0.path.contains("/v1/sets/") }
        #expect(setPuts.count == 12 && Set(setPuts.map(\.path)).count == 12, "each set PUT once: \(setPuts)")
        #expect(setPuts.allSatisfy { $0.status == 201 })

        upstream.server.resetCounts()
        let logged = nginx.log.count
        let final = try site(upstream, remote: nginx.url)
        let run = try await build(final)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.counts["processed"] == 0 && run.counts["downloaded"] == 0, "\(run.counts)")
        #expect(run.remote["sets_found"] as? Int == 12 && run.remote["records_found"] as? Int == 12)
        #expect(downloads(upstream).isEmpty)
        #expect(!nginx.log.dropFirst(logged).contains { $0.method == "PUT" }, "the final build writes nothing")
        #expect(try final.snapshot().mapValues(\.0) == expected, "byte for byte a single machine's site")
    }

    @Test func aFreshMachineWithAWarmRemoteNeitherDownloadsNorEncodes() async throws {
        let upstream = try await Upstream(count: 5)
        upstream.setCacheControl("max-age=3600")
        let nginx = try await NginxStore.started()
        let first = try site(upstream, remote: nginx.url)
        let warm = try await build(first)
        #expect(warm.command.status == 0 && warm.counts["processed"] == 5)
        #expect(warm.remote["uploads"] as? Int == 10, "5 URL records and 5 sets: \(warm.remote)")
        upstream.server.resetCounts()

        let fresh = try site(upstream, remote: nginx.url)
        let run = try await build(fresh)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.counts["processed"] == 0 && run.counts["downloaded"] == 0, "\(run.counts)")
        // Fresh by the records' max-age: the photo host is not even asked.
        #expect(upstream.photoRequests.isEmpty, "\(upstream.photoRequests.map(\.path))")
        #expect(run.counts["fresh"] == 5)
        #expect(try fresh.snapshot().mapValues(\.0) == first.snapshot().mapValues(\.0))

        // The next build on that machine has everything locally: no remote request at all.
        let logged = nginx.log.count
        let again = try await build(fresh)
        #expect(again.command.status == 0 && again.counts["processed"] == 0)
        #expect(again.remote["sets_found"] as? Int == 0)
        #expect(nginx.log.count - logged == 5, "only the URL records are asked again: \(nginx.log.dropFirst(logged))")
    }

    @Test func aShardWhoseLocalCacheIsWarmStillFillsTheRemote() async throws {
        let upstream = try await Upstream(count: 4)
        let nginx = try await NginxStore.started()
        // A runner whose cache CI restored: it has every photo, and the remote has none.
        let runner = try site(upstream, remote: nil)
        #expect(try await build(runner).command.status == 0)
        let expected = try runner.snapshot().mapValues(\.0)
        upstream.server.resetCounts()
        let shard = try await build(runner, ["--shard", "1/1", "--remote-cache", nginx.url])
        #expect(shard.command.status == 0, "\(shard.command.standardError)")
        #expect(shard.counts["processed"] == 0 && shard.counts["downloaded"] == 0, "\(shard.counts)")
        #expect(nginx.objects("urls").count == 4 && nginx.objects("sets").count == 4)
        #expect(nginx.log.filter { $0.method == "HEAD" }.count == 8, "asked before writing")

        let final = try site(upstream, remote: nginx.url)
        let run = try await build(final)
        #expect(run.counts["processed"] == 0 && run.counts["downloaded"] == 0, "\(run.counts)")
        #expect(try final.snapshot().mapValues(\.0) == expected)
    }

    @Test(arguments: ["private, max-age=600", "no-store"])
    func responsesForOneUserOrNotToBeStoredAreNotShared(cacheControl: String) async throws {
        let upstream = try await Upstream(count: 2)
        upstream.setCacheControl(cacheControl)
        let nginx = try await NginxStore.started()
        let run = try await build(try site(upstream, remote: nginx.url))
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(nginx.objects("urls").isEmpty, "no URL record of \(cacheControl) responses")
    }

    @Test func aShardThatCannotWriteItsWorkFails() async throws {
        let upstream = try await Upstream(count: 2)
        let failing = try await NginxStore.started(failing: 503)
        let run = try await build(try site(upstream, remote: failing.url), ["--shard", "1/1"])
        #expect(run.command.status == 1)
        #expect(run.command.standardError.contains("could not hand all its work"), "\(run.command.standardError)")
    }

    @Test func aRemoteThatIsDownCostsAWarningAndStrictFails() async throws {
        let upstream = try await Upstream(count: 3)
        let expected = try await singleMachineOutput(upstream)
        let nobody = "http://127.0.0.1:\(try NginxStore.freePort())/cache/"
        let site = try site(upstream, remote: nobody)
        let run = try await build(site)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(
            run.warnings.contains { $0.contains("unreachable") && $0.contains("ran without it") }, "\(run.warnings)")
        #expect(try site.snapshot().mapValues(\.0) == expected)

        // A build whose local cache has everything never asks the remote; one that needs it
        // fails with --strict.
        let strict = try await build(try self.site(upstream, remote: nobody), ["--strict"])
        #expect(strict.command.status == 1)
        #expect(strict.command.standardError.contains("remote cache failed"), "\(strict.command.standardError)")
    }

    @Test func aRemoteAnswering500CostsAWarning() async throws {
        let upstream = try await Upstream(count: 3)
        let expected = try await singleMachineOutput(upstream)
        let failing = try await NginxStore.started(failing: 500)
        let site = try site(upstream, remote: failing.url)
        let run = try await build(site)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.counts["processed"] == 3)
        #expect(run.warnings.contains { $0.contains("HTTP 500") }, "\(run.warnings)")
        #expect(try site.snapshot().mapValues(\.0) == expected)
    }

    @Test func aRemoteKilledInTheMiddleCostsAWarning() async throws {
        let upstream = try await Upstream(count: 8)
        let expected = try await singleMachineOutput(upstream)
        let nginx = try await NginxStore.started()
        // The later photos arrive only once the store is dead, so the build has work for it
        // after it died however slow the machine (a fixed delay was outrun on a loaded one:
        // every upload done before the store stopped, and no warning).
        let stopped = Mutex(false)
        // Every photo may be asked at once: the photos are asked in the order their remote
        // lookups end, and two held ones taking both of two slots left nothing to upload (CI saw
        // that: no PUT, and every photo failed when the held ones timed out).
        upstream.hold(from: 4) { stopped.withLock { $0 } }
        let site = try site(upstream, remote: nginx.url)
        async let running = build(site, ["--per-host", "8"])
        try await waitUntil(seconds: 60) { nginx.log.contains { $0.method == "PUT" } }
        nginx.stop()
        stopped.withLock { $0 = true }
        let run = try await running
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.counts["failed"] == 0 && run.counts["processed"] == 8)
        #expect(run.warnings.contains { $0.contains("unreachable") }, "\(run.warnings)")
        #expect(try site.snapshot().mapValues(\.0) == expected)
    }

    /// Damages one set object (and one URL record) in the store, then builds on a fresh machine.
    func damagedObject(_ damage: (URL) throws -> Void, warning: String) async throws {
        let upstream = try await Upstream(count: 4)
        let nginx = try await NginxStore.started()
        let first = try site(upstream, remote: nginx.url)
        #expect(try await build(first).command.status == 0)
        let expected = try first.snapshot().mapValues(\.0)
        let set = try #require(nginx.objects("sets").first)
        let record = try #require(nginx.objects("urls").first)
        let goodSet = try Data(contentsOf: set)
        try damage(set)
        try damage(record)
        let damagedRecord = try Data(contentsOf: record)
        upstream.server.resetCounts()

        let fresh = try site(upstream, remote: nginx.url)
        let run = try await build(fresh)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.warnings.contains { $0.contains(warning) && $0.contains("replaced") }, "\(run.warnings)")
        #expect(try fresh.snapshot().mapValues(\.0) == expected, "the damaged object was not used")
        // The build made what it could not take, and wrote it back over the damaged copy.
        #expect((1...2).contains(run.counts["processed"] ?? 0), "\(run.counts)")
        #expect(try Data(contentsOf: set) == goodSet, "the set object was replaced")
        let rewritten = try Data(contentsOf: record)
        #expect(rewritten != damagedRecord, "the URL record was replaced")
        #expect(rewritten.starts(with: Data("gallerygen-remote 1 urls ".utf8)))
    }

    @Test func aCorruptedObjectIsNotUsedAndIsReplaced() async throws {
        try await damagedObject(
            { file in
                var data = try Data(contentsOf: file)
                data[data.count - 10] ^= 0x55
                try data.write(to: file)
            }, warning: "did not match their recorded hash")
    }

    @Test func aTruncatedObjectIsNotUsedAndIsReplaced() async throws {
        try await damagedObject(
            { file in
                let data = try Data(contentsOf: file)
                try data.prefix(data.count / 2).write(to: file)
            }, warning: "truncated")
    }

    /// Someone who can write the store but has no key (a store with public write, a leaked
    /// token, another site in the bucket) forges photo 2's URL record: the hash of photo 1, fresh
    /// for an hour, in a well-formed envelope. A build with the site's key ignores it (and every
    /// other unsigned object), warns once, and publishes photo 2; the forged object is replaced.
    @Test func aForgedObjectIsIgnoredByABuildWithTheKey() async throws {
        let upstream = try await Upstream(count: 3)
        upstream.setCacheControl("max-age=3600")
        let nginx = try await NginxStore.started()
        let key = [SigningKey.variable: "site-secret-for-tests-0123456789"]
        let first = try site(upstream, remote: nginx.url)
        let warm = try await build(first, environment: key)
        #expect(warm.command.status == 0, "\(warm.command.standardError)")
        let expected = try first.snapshot().mapValues(\.0)
        #expect(
            try nginx.objects("urls").allSatisfy { try Self.envelopeLine(of: $0).split(separator: " ").count == 6 },
            "every object carries a MAC")

        let photo1 = upstream.server.baseURL + "/photos/1.jpg"
        let photo2 = upstream.server.baseURL + "/photos/2.jpg"
        let records = nginx.objects("urls")
        let record1 = try #require(records.first { $0.lastPathComponent == sha256Hex(of: photo1) })
        let record2 = try #require(records.first { $0.lastPathComponent == sha256Hex(of: photo2) })
        let payload1 = try Self.payload(of: record1)
        let forgedPayload = Data(
            String(decoding: payload1, as: UTF8.self).replacingOccurrences(of: photo1, with: photo2).utf8)
        var forged = Data("gallerygen-remote 1 urls \(forgedPayload.count) \(sha256Hex(of: forgedPayload))\n".utf8)
        forged.append(forgedPayload)
        try forged.write(to: record2)

        // Without the key, the forged record is taken: photo 2 shows photo 1 (the trust the docs
        // describe). With it, the record is ignored.
        let unkeyed = try site(upstream, remote: nginx.url)
        let fooled = try await build(unkeyed)
        #expect(fooled.command.status == 0)
        #expect(try unkeyed.snapshot().mapValues(\.0) != expected, "without a key the store is trusted")
        try forged.write(to: record2)

        let fresh = try site(upstream, remote: nginx.url)
        let run = try await build(fresh, environment: key)
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(
            run.warnings.contains { $0.contains("1 object were not signed with this site's key") },
            "\(run.warnings)")
        #expect(try fresh.snapshot().mapValues(\.0) == expected, "photo 2 is photo 2")
        #expect(try Self.envelopeLine(of: record2).split(separator: " ").count == 6, "the forged object was replaced")
    }

    static func envelopeLine(of file: URL) throws -> String {
        let data = try Data(contentsOf: file)
        return String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    static func payload(of file: URL) throws -> Data {
        let data = try Data(contentsOf: file)
        guard let newline = data.firstIndex(of: 0x0A) else { return Data() }
        return Data(data[data.index(after: newline)...])
    }

    @Test func aShardWithoutARemoteCacheIsRefused() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try site(upstream, remote: nil)
        let run = try await CommandRun.gallerygen(["build", site.url.path, "--shard", "1/2"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("remote cache"), "\(run.standardError)")
        let bad = try await CommandRun.gallerygen(["build", site.url.path, "--shard", "3/2"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("from 1 to 2"), "\(bad.standardError)")
        let gitlab = try await CommandRun.gallerygen(
            ["build", site.url.path, "--shard", "auto", "--remote-cache", "ftp://x/"],
            environment: ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"])
        #expect(gitlab.status == 2 && gitlab.standardError.contains("--remote-cache"), "\(gitlab.standardError)")
    }

    /// The store these tests run: a port found free but taken before nginx binds it (here by the
    /// photo host, which answers 404 to what it does not know, as to every PUT) is passed over
    /// for another, and the build's objects reach nginx, not the server on that port.
    @Test func aPortTakenBeforeNginxBindsItIsPassedOver() async throws {
        let upstream = try await Upstream(count: 2)
        let offered = Locked([upstream.server.port])
        let nginx = try await NginxStore.started(ports: {
            var port: Int?
            offered.update { list in
                port = list?.first
                if port != nil { list?.removeFirst() }
            }
            return try port ?? NginxStore.freePort()
        })
        #expect(nginx.port != upstream.server.port)

        let run = try await build(try site(upstream, remote: nginx.url))

        #expect(run.command.status == 0 && run.warnings.isEmpty, "\(run.warnings)")
        #expect(nginx.log.contains { $0.method == "PUT" && $0.status == 201 }, "\(nginx.log)")
        #expect(!upstream.server.requests.contains { $0.path.hasPrefix("/cache/") })
    }
}
