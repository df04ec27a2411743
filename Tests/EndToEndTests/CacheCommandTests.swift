import Foundation
import GalleryCore
import TestSupport
import Testing

@Suite struct CacheCommandTests {
    @Test func infoAndPrune() async throws {
        let site = try FixtureSite(count: 3)
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)

        let info = try await CommandRun.gallerygen(["cache", "info", site.url.path])
        #expect(info.status == 0)
        #expect(info.standardOutput.contains("thumbnail sets: 3"))
        #expect(info.standardOutput.contains("(no cache_limit)"))
        let today = Date().formatted(.iso8601.year().month().day().dateSeparator(.dash))
        #expect(info.standardOutput.contains("oldest use: \(today)"), "\(info.standardOutput)")

        let prune = try await CommandRun.gallerygen(["cache", "prune", site.url.path, "--to", "1B"])
        #expect(prune.status == 0 && prune.standardOutput.hasPrefix("removed "))
        #expect(
            try await CommandRun.gallerygen(["cache", "info", site.url.path]).standardOutput.contains(
                "thumbnail sets: 0"))

        let rebuild = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(rebuild.status == 0 && rebuild.standardOutput.contains("3 encoded"))
        #expect(try await CommandRun.gallerygen(["cache", "prune", site.url.path, "--to", "lots"]).status == 2)
    }
}
