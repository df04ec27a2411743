public import Foundation

/// A site folder for tests: gallery.yml, a list feed and generated photos.
public struct FixtureSite: Sendable {
    public let folder: TemporaryDirectory
    public var url: URL { folder.url }

    /// Makes `count` distinct photos (`photos/pN.jpg`, 160x120) and a list feed naming them;
    /// `extraEntries` are appended to the feed as they are.
    public init(count: Int = 3, extraConfig: String = "", extraEntries: [String] = [], titles: [String]? = nil) throws {
        folder = try TemporaryDirectory("site")
        var entries: [String] = []
        for index in 1...max(1, count) where count > 0 {
            var image = TestImage(width: 160, height: 120, fill: TestImage.Color(UInt8(40 * index % 256), 90, 160))
            image.fillRect(x: 10 * index % 150, y: 10, width: 20, height: 20, color: .white)
            try image.saveJPEG(to: folder.file("photos/p\(index).jpg"))
            let title = titles?[index - 1] ?? "Photo \(index)"
            entries.append(#"{"title": \#(Self.jsonString(title)), "imageUrl": "photos/p\#(index).jpg"}"#)
        }
        try writeFeed(entries + extraEntries)
        try folder.write(
            """
            title: Test gallery
            feed: feed.json
            images:
              widths: [64, 128]
            \(extraConfig)
            """,
            to: "gallery.yml"
        )
        try folder.write("Hello **world**.\n", to: "index.md")
    }

    /// A site with no photos of its own whose feed is `feed` (a URL, or a path in the site), with
    /// widths 48 and 96.
    public init(feed: String, title: String, extraConfig: String = "") throws {
        try self.init(count: 0)
        try folder.write(
            "title: \(title)\nfeed: \(feed)\nimages:\n  widths: [48, 96]\n\(extraConfig)\n", to: "gallery.yml")
    }

    public func writeFeed(_ entries: [String]) throws {
        try folder.write("[\n" + entries.joined(separator: ",\n") + "\n]\n", to: "feed.json")
    }

    public static func jsonString(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }

    /// Every file of the output with its bytes and its inode number. Files are written to a
    /// temporary name and renamed, so a rewritten file has a new inode, however little time
    /// passed: no test needs to sleep for a modification time to move.
    public func snapshot(of output: String = "public") throws -> [String: (Data, UInt64)] {
        var result: [String: (Data, UInt64)] = [:]
        for path in folder.allFiles(under: output) {
            let file = folder.file(output).appendingPathComponent(path)
            result[path] = (try Data(contentsOf: file), try Self.inode(of: file))
        }
        return result
    }

    /// The file's inode number: it changes when the file is replaced by a rename.
    public static func inode(of file: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
