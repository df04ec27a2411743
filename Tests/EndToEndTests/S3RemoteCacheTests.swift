import Foundation
import TestSupport
import Testing

/// The remote cache tier on an S3 API that checks signatures (moto's server, with an IAM user):
/// the sharded build of ``RemoteCacheTests`` again, under a prefix with spaces and unicode, and
/// a wrong secret.
@Suite(.timeLimit(.minutes(5))) struct S3RemoteCacheTests {
    let cases = RemoteCacheTests()

    @Test func shardsAndAFinalBuildThroughSignedS3Requests() async throws {
        let s3 = try await S3TestServer.started()
        let upstream = try await Upstream(count: 8)
        let expected = try await cases.singleMachineOutput(upstream)
        let remote = "s3://\(s3.details.bucket)/gallery cache/ünï"

        let shards = try (1...4).map { _ in try cases.site(upstream, remote: remote) }
        let runs = try await withThrowingTaskGroup(of: RemoteCacheTests.Run.self) { group in
            for (offset, shard) in shards.enumerated() {
                group.addTask {
                    try await cases.build(shard, ["--shard", "\(offset + 1)/4"], environment: s3.environment())
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs {
            #expect(run.command.status == 0, "\(run.command.standardError)")
            #expect(run.warnings.isEmpty, "\(run.warnings)")
        }
        #expect(runs.map { $0.remote["uploads"] as? Int ?? 0 }.reduce(0, +) == 16, "8 URL records and 8 sets")
        let downloaded = cases.downloads(upstream)
        #expect(downloaded.count == 8 && downloaded.values.allSatisfy { $0 == 1 }, "\(downloaded)")

        let final = try cases.site(upstream, remote: remote)
        let run = try await cases.build(final, environment: s3.environment())
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.counts["processed"] == 0 && run.counts["downloaded"] == 0, "\(run.counts)")
        #expect(run.remote["sets_found"] as? Int == 8)
        #expect(try final.snapshot().mapValues(\.0) == expected)
    }

    @Test func aWrongSecretIsRefusedByTheServerAndCostsAWarning() async throws {
        let s3 = try await S3TestServer.started()
        let upstream = try await Upstream(count: 3)
        let expected = try await cases.singleMachineOutput(upstream)
        let remote = "s3://\(s3.details.bucket)/cache"
        let site = try cases.site(upstream, remote: remote)
        let run = try await cases.build(site, environment: s3.environment(secretKey: "not-the-secret"))
        #expect(run.command.status == 0, "\(run.command.standardError)")
        #expect(run.warnings.contains { $0.contains("SignatureDoesNotMatch") }, "\(run.warnings)")
        #expect(try site.snapshot().mapValues(\.0) == expected)

        let strict = try await cases.build(
            try cases.site(upstream, remote: remote), ["--strict"],
            environment: s3.environment(secretKey: "not-the-secret"))
        #expect(strict.command.status == 1)

        // Without keys (the variables not set: the test's process passes on no AWS_ variable) the
        // build says so, and runs without the remote cache.
        let keyless = try await cases.build(try cases.site(upstream, remote: remote), environment: [:])
        #expect(keyless.command.status == 0)
        #expect(keyless.warnings.contains { $0.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set") })
        // Set but blank, as a CI job sets a secret it does not have: a mistake, said as one.
        let blank = try await cases.build(
            try cases.site(upstream, remote: remote),
            environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": " "])
        #expect(blank.command.status == 2)
        #expect(blank.command.standardError.contains("AWS_ACCESS_KEY_ID"), "\(blank.command.standardError)")
    }
}
