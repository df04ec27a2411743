import ArgumentParser
import Foundation
import GalleryBuild
import Loading
import Reporting

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show or shrink the site's cache of originals and thumbnails.",
        subcommands: [Info.self, Prune.self]
    )

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What the cache holds.")

        @Argument(help: "The site folder (holding gallery.yml).", completion: .directory)
        var siteDirectory: String = "."

        func run() async throws {
            let maintenance = CacheMaintenance(siteDirectory: URL(fileURLWithPath: siteDirectory, isDirectory: true))
            do {
                let (info, limit, folder) = try await maintenance.info()
                print("cache: \(folder.path)")
                print("urls: \(info.records)")
                print("originals: \(info.blobCount) files, \(BuildReport.formatBytes(info.blobBytes))")
                print("thumbnail sets: \(info.renditionSets), \(BuildReport.formatBytes(info.renditionBytes))")
                if let oldest = info.oldestUse {
                    print("oldest use: \(oldest.formatted(.iso8601.year().month().day().dateSeparator(.dash)))")
                }
                print(
                    "total: \(BuildReport.formatBytes(info.totalBytes))"
                        + (limit.map { " of \(BuildReport.formatBytes($0)) (cache_limit)" } ?? " (no cache_limit)"))
            } catch {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitStatus.code(for: error)
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove least-recently-used entries until the cache fits cache_limit (or --to)."
        )

        @Argument(help: "The site folder (holding gallery.yml).", completion: .directory)
        var siteDirectory: String = "."

        @Option(help: "A size to shrink to instead of cache_limit, e.g. 500MB.")
        var to: String?

        func run() async throws {
            let maintenance = CacheMaintenance(siteDirectory: URL(fileURLWithPath: siteDirectory, isDirectory: true))
            var limit: Int64?
            if let to {
                guard let parsed = ConfigLoader.byteCount(to) else {
                    throw ValidationError("--to must be a size such as 500MB")
                }
                limit = parsed
            }
            do {
                let (removed, left) = try await maintenance.prune(to: limit)
                print(
                    "removed \(BuildReport.formatBytes(removed)); the cache holds \(BuildReport.formatBytes(left.totalBytes))"
                )
            } catch {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitStatus.code(for: error)
            }
        }
    }
}
