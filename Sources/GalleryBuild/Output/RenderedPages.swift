import Foundation
import GalleryCore
import Rendering

/// The grid and photo pages the last build left in an output folder, each with its fingerprint
/// (``PageFingerprint``) and the status its file had then (size, modification time to the
/// nanosecond, inode). A page whose fingerprint has not changed and whose file still has that
/// status is the page this build would write, so it is not rendered again: a rebuild of 100,000
/// unchanged photo pages stats them instead of rendering them.
///
/// The thumbnails copied into the output are kept the same way, each with its SHA-256 for a
/// fingerprint: one still as stamped is in place, and one whose stamp moved is hashed before it
/// is trusted, so a thumbnail damaged in place at its size is copied again.
///
/// Kept in the cache folder as `rendered-pages`: a line naming the output folder it describes and
/// the fingerprint of everything its pages were made from (the sources: when they are this
/// build's too, a page still in place is not even built to be compared), then a line per page,
/// `<fingerprint> <size> <mtime ns> <inode> <path>`. It only ever saves work: a missing, damaged
/// or foreign file, or a page edited, replaced or removed since, means the page is rendered.
struct RenderedPages: Sendable {
    struct Entry: Sendable, Equatable {
        var fingerprint: PageFingerprint
        var size: Int64
        var modified: Int64
        var inode: UInt64
    }

    static let fileName = "rendered-pages"
    private static let header = "gallerygen rendered-pages 2\t"

    let outputDirectory: URL
    /// `outputDirectory`'s path and a slash, made once (not once per page looked up).
    private let prefix: String
    /// What the recorded pages were made from.
    private(set) var sources: PageFingerprint?
    private(set) var entries: [String: Entry]

    init(outputDirectory: URL, sources: PageFingerprint? = nil, entries: [String: Entry] = [:]) {
        self.outputDirectory = outputDirectory
        self.prefix = outputDirectory.path + "/"
        self.sources = sources
        self.entries = entries
    }

    /// The fingerprint recorded for the page at `path`, when its file is in place as the build
    /// that recorded it left it.
    func recorded(_ path: String) -> PageFingerprint? {
        guard let entry = entries[path], let status = FileStatus(path: prefix + path),
            status.isRegularFile, status.size == entry.size, status.modifiedNanoseconds == entry.modified,
            status.inode == entry.inode
        else { return nil }
        return entry.fingerprint
    }

    /// What the renderer needs of it.
    var reuse: SiteRenderer.PageReuse {
        SiteRenderer.PageReuse(sources: sources, recorded: recorded)
    }

    /// The record in `file` if it describes `outputDirectory`; else an empty one.
    static func load(from file: URL, outputDirectory: URL) -> RenderedPages {
        var pages = RenderedPages(outputDirectory: outputDirectory)
        guard let data = FileManager.default.contents(atPath: file.path) else { return pages }
        let expected = Array("\t\(outputDirectory.standardizedFileURL.path)".utf8)
        let prefix = Array(header.utf8)
        var entries: [String: Entry] = [:]
        var sources: PageFingerprint?
        let complete = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
            // The last line ends the file: a record cut short by a crash has no newline at its end.
            guard lines.last?.isEmpty == true, let first = lines.popFirst(), first.starts(with: prefix),
                case let rest = first.dropFirst(prefix.count), rest.count == 64 + expected.count,
                rest.dropFirst(64).elementsEqual(expected), let fingerprint = PageFingerprint(hex: rest.prefix(64))
            else {
                return false
            }
            sources = fingerprint
            lines.removeLast()
            entries.reserveCapacity(lines.count)
            for line in lines {
                let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 4, omittingEmptySubsequences: false)
                guard fields.count == 5, let fingerprint = PageFingerprint(hex: fields[0]),
                    let size = UInt64(ascii: fields[1]), let modified = UInt64(ascii: fields[2]),
                    let inode = UInt64(ascii: fields[3]), !fields[4].isEmpty
                else { return false }
                entries[String(decoding: fields[4], as: UTF8.self)] = Entry(
                    fingerprint: fingerprint, size: Int64(bitPattern: size), modified: Int64(bitPattern: modified),
                    inode: inode)
            }
            return true
        }
        if complete {
            pages.entries = entries
            pages.sources = sources
        }
        return pages
    }

    /// Records the pages as they are now in the output folder and writes the record atomically:
    /// `rendered`, written by this build, as a stat finds them (one that is not there, or whose
    /// path could not be read back from a line, is left out); `kept`, found in place by this
    /// build through ``recorded(_:)``, as recorded then (their files were checked against it, and
    /// a file changed since only fails the next check: at 100,000 pages a second stat of each
    /// cost a third of a second).
    func save(rendered: [UnchangedPage], kept: [UnchangedPage], sources: PageFingerprint, to file: URL) throws {
        var text = Array(Self.header.utf8)
        sources.appendHex(to: &text)
        text += Array("\t\(outputDirectory.standardizedFileURL.path)\n".utf8)
        text.reserveCapacity((rendered.count + kept.count) * 128)
        func append(_ path: String, _ entry: Entry) {
            entry.fingerprint.appendHex(to: &text)
            for number in [UInt64(entry.size), UInt64(bitPattern: entry.modified), entry.inode] {
                text.append(0x20)
                text += number.description.utf8
            }
            text.append(0x20)
            text += path.utf8
            text.append(0x0A)
        }
        let statuses = concurrentParts(of: rendered.count, minimumPart: 2048) { [prefix] range in
            rendered[range].map { page in FileStatus(path: prefix + page.path) }
        }.joined()
        for (page, status) in zip(rendered, statuses) where !page.path.utf8.contains(0x0A) {
            guard let status, status.isRegularFile else { continue }
            append(
                page.path,
                Entry(
                    fingerprint: page.fingerprint, size: status.size, modified: status.modifiedNanoseconds,
                    inode: status.inode))
        }
        for page in kept where !page.path.utf8.contains(0x0A) {
            guard let entry = entries[page.path], entry.fingerprint == page.fingerprint else { continue }
            append(page.path, entry)
        }
        try AtomicFile.write(Data(text), to: file)
    }
}

extension FixedWidthInteger where Self: UnsignedInteger {
    /// A decimal number in ASCII, as `description` writes it; nil for anything else.
    init?(ascii digits: Slice<UnsafeBufferPointer<UInt8>>) {
        guard !digits.isEmpty else { return nil }
        var value: Self = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Self(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        self = value
    }
}
