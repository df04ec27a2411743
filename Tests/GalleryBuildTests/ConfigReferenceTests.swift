import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import GalleryBuild

/// docs/configuration.md, the reference of `gallery.yml`, says what the config reader reads: a
/// row for every key it takes and none for a key it does not, and the defaults it fills in.
@Suite struct ConfigReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The reference's rows, by key: `| `key` | default | meaning |`.
    static func rows() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            let key = String(cells[1].dropFirst().dropLast())
            // Configuration keys are lower case; the environment's variables are not.
            guard key.allSatisfy({ $0.isLowercase || $0 == "_" || $0 == "." }) else { continue }
            #expect(rows[key] == nil, "\(key) has two rows")
            rows[key] = cells[2]
        }
        return rows
    }

    @Test func everyKeyTheReaderTakesHasOneRowAndNoOtherKeyHasOne() throws {
        let documented = Set(try Self.rows().keys)
        let read = Set(
            ConfigReader.topLevelKeys + ConfigReader.feedKeys.map { "feed.\($0)" }
                + ConfigReader.fieldKeys.map { "feed.fields.\($0)" } + ConfigReader.imageKeys.map { "images.\($0)" }
                + ConfigReader.pagingKeys.map { "feed.paging.\($0)" } + ConfigReader.authKeys.map { "feed.auth.\($0)" }
                + ConfigReader.videoKeys.map { "video.\($0)" })
        #expect(read.subtracting(documented).sorted() == [], "read but not documented")
        #expect(documented.subtracting(read).sorted() == [], "documented but not read")
    }

    @Test func theDocumentedDefaultsAreTheReadersDefaults() throws {
        let rows = try Self.rows()
        let folder = try TemporaryDirectory("reference")
        try Data("title: T\nfeed: feed.json\n".utf8).write(to: folder.file("gallery.yml"))
        let config = try ConfigLoader().config(inSite: folder.url)
        func code(_ text: String) -> String { "`\(text)`" }
        let expected: [String: String] = [
            "output": code(config.output), "cache": code(config.cache), "concurrency": code("\(config.concurrency)"),
            "per_host": code("\(config.perHost)"), "max_pixels": code("\(config.maxPixels)"),
            "page_size": code("\(config.pageSize)"), "grid": code(config.grid.rawValue),
            "allow_html": code("\(config.allowRawHTML)"), "exif": code("\(config.showsCameraDetails)"),
            "host_files": code("\(config.hostFiles)"), "follow_symlinks": code("\(config.followsSymlinks)"),
            "feed.format": code(config.feed.format.rawValue),
            "images.widths": code("[" + config.images.widths.map(String.init).joined(separator: ", ") + "]"),
            "images.formats": code("[" + config.images.formats.map(\.rawValue).joined(separator: ", ") + "]"),
            "images.quality": code("\(config.images.quality)"), "images.effort": code("\(config.images.effort)"),
            "video.heights": code("[" + config.video.heights.map(String.init).joined(separator: ", ") + "]"),
            "video.webm": code("\(config.video.webm)"), "video.audio": code("\(config.video.audio)"),
            "video.max_duration": code("\(Int(config.video.maxDuration))"),
            "video.max_pixels": code("\(config.video.maxPixels)"),
            "video.max_bytes": code("\(config.video.maxBytes / 1_000_000_000)GB"),
            "video.time_limit": code("\(Int(config.video.timeLimit))"),
        ]
        for (key, value) in expected {
            #expect(rows[key]?.hasPrefix(value) == true, "\(key): documented \(rows[key] ?? "nothing"), read \(value)")
        }
        var digits = String(config.maxImageBytes)
        var grouped: [String] = []
        while digits.count > 3 {
            grouped.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        grouped.insert(digits, at: 0)
        let bytes = grouped.joined(separator: ",")
        #expect(rows["max_image_bytes"]?.contains("(\(bytes) bytes)") == true, "\(rows["max_image_bytes"] ?? "")")
        for key in ["cache_limit", "templates", "base_url", "max_failures", "seed", "remote_cache"] {
            #expect(rows[key]?.hasPrefix("none") == true, "\(key) has no default: \(rows[key] ?? "")")
        }
    }

    /// Every GALLERYGEN_ variable the code reads is in the reference's environment table.
    @Test func everyEnvironmentVariableIsDocumented() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let sources = Self.root.appendingPathComponent("Sources")
        var names: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let code = try? String(contentsOf: file, encoding: .utf8) else {
                continue
            }
            for match in code.matches(of: /"(GALLERYGEN_[A-Z_]+)"/) { names.insert(String(match.output.1)) }
        }
        #expect(!names.isEmpty)
        for name in names.sorted() {
            #expect(text.contains("| `\(name)`"), "\(name) is read by the code but not in docs/configuration.md")
        }
    }
}
