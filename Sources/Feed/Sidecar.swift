package import Foundation
package import GalleryCore
import Metadata
import Yams

/// The files beside a photo in a folder feed that say what it is: an XMP sidecar
/// (`IMG_0001.xmp` as Lightroom names it, `IMG_0001.jpg.xmp` as darktable does) and a text
/// sidecar (`IMG_0001.md`, a Markdown caption, or `IMG_0001.txt`, a plain one), either with YAML
/// front matter for the other fields. The text sidecar wins over the XMP one, field by field.
package struct Sidecar: Sendable, Equatable {
    /// The most a sidecar is read: past it, it is reported and skipped.
    package static let textLimit = 64 * 1024

    package var metadata = PhotoMetadata()
    package var captionMarkdown: String?
    /// What was wrong with a sidecar, naming it.
    package var warnings: [String] = []

    /// The front matter keys a text sidecar may have.
    package static let frontMatterKeys = [
        "title", "description", "alt", "keywords", "date", "creator", "rights", "licence", "license", "rating",
    ]

    /// The sidecars of the image `name` among `names` (a folder's listing) in `folder`; `shown`
    /// names the folder in warnings (`2019/Iceland`).
    ///
    /// - Parameter isAllowed: whether a sidecar that is a symbolic link may be read where it
    ///   leads (the folder feed's rule for photos: inside the site or the feed folder).
    package init(
        of name: String, among names: Set<String>, in folder: URL, shown: String,
        isAllowed: (URL) -> Bool = { _ in true }
    ) {
        let candidates = Self.candidates(of: name)
        let prefix = shown.isEmpty ? "" : shown + "/"
        var xmp = PhotoMetadata()
        for candidate in candidates.xmp where names.contains(candidate) {
            guard
                let bytes = read(
                    folder.appendingPathComponent(candidate), shown: prefix + candidate, isAllowed: isAllowed)
            else { break }
            let packet = XMPPacket(bytes: bytes)
            warnings += packet.warnings.map { "\(prefix)\(candidate): \($0)" }
            xmp = packet.metadata
            break
        }
        var text = PhotoMetadata()
        for (candidate, isMarkdown) in candidates.text where names.contains(candidate) {
            guard
                let bytes = read(
                    folder.appendingPathComponent(candidate), shown: prefix + candidate, isAllowed: isAllowed)
            else { break }
            guard let source = String(strictUTF8: Array(bytes)) else {
                warnings.append("\(prefix)\(candidate): not UTF-8 text; not read")
                break
            }
            let (fields, body) = frontMatter(of: source, shown: prefix + candidate)
            text = fields
            let caption = body.trimmingWhitespace()
            if !caption.isEmpty {
                if isMarkdown { captionMarkdown = caption } else { text.description = text.description ?? caption }
            }
            break
        }
        metadata = text.filled(from: xmp).bounded()
    }

    /// Nothing read yet.
    private init() {}

    /// ``init(of:among:in:shown:isAllowed:)`` when `names` lists a sidecar of `name`; nil (at the
    /// cost of a few lookups, not of a merge of empty metadata) when it lists none, as for most
    /// photos of a folder.
    package static func ifAny(
        of name: String, among names: Set<String>, in folder: URL, shown: String,
        isAllowed: (URL) -> Bool = { _ in true }
    ) -> Sidecar? {
        let candidates = candidates(of: name)
        guard
            candidates.xmp.contains(where: names.contains) || candidates.text.contains(where: { names.contains($0.0) })
        else { return nil }
        return Sidecar(of: name, among: names, in: folder, shown: shown, isAllowed: isAllowed)
    }

    /// The names a sidecar of the image `name` may have, each kind in the order they are tried:
    /// XMP (darktable's `IMG_0001.jpg.xmp`, Lightroom's `IMG_0001.xmp`, either in capitals), then
    /// text (Markdown, then plain).
    private static func candidates(of name: String) -> (xmp: [String], text: [(name: String, isMarkdown: Bool)]) {
        let stem = FeedReader.nameParts(name).stem
        return (
            [name + ".xmp", stem + ".xmp", name + ".XMP", stem + ".XMP"],
            [(stem + ".md", true), (stem + ".txt", false)]
        )
    }

    private mutating func read(_ file: URL, shown: String, isAllowed: (URL) -> Bool) -> Data? {
        if FileStatus.isSymbolicLink(file), !isAllowed(file) {
            warnings.append(
                "\(shown): a symbolic link to a place outside the site folder; not read "
                    + "(set `follow_symlinks: true` in gallery.yml to read it)")
            return nil
        }
        guard FileStatus(file)?.isRegularFile == true else {
            warnings.append("\(shown): not a plain file; not read")
            return nil
        }
        do {
            return try PlainFile.read(file, limit: Int64(XMPPacket.sizeLimit))
        } catch {
            warnings.append("\(shown): cannot read it: it \(error)")
            return nil
        }
    }

    /// The fields of a `---` fenced YAML block at the top of `text`, and the text after it.
    private mutating func frontMatter(of text: String, shown: String) -> (PhotoMetadata, String) {
        let (mapping, body) = Self.frontMatter(of: text, shown: shown, warnings: &warnings)
        guard let mapping else { return (PhotoMetadata(), body) }
        var fields = PhotoMetadata()
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { continue }
            func text() -> String? {
                guard let text = value.scalar?.string else {
                    warnings.append("\(shown): `\(key)` is not text; ignored")
                    return nil
                }
                return text
            }
            switch key {
            case "title": fields.title = text()
            case "description": fields.description = text()
            case "alt": fields.alt = text()
            case "creator": fields.creator = text()
            case "rights": fields.rights = text()
            case "licence", "license": fields.licence = text()
            case "rating":
                fields.rating = text().flatMap { Int($0) }
            case "date":
                if let date = text() {
                    fields.taken = CaptureTime.parse(date)
                    if fields.taken == nil {
                        warnings.append(
                            "\(shown): `date` \"\(date.prefix(40))\" is not a date (2024-05-01 14:32); ignored")
                    }
                }
            case "keywords":
                if let list = value.sequence {
                    fields.keywords = list.compactMap { $0.scalar?.string }
                } else if let line = text() {
                    fields.keywords = line.split(separator: ",").map { String($0) }
                }
            default:
                warnings.append(
                    "\(shown): unknown front matter key `\(key)`; use \(Self.frontMatterKeys.joined(separator: ", "))")
            }
        }
        return (fields, body)
    }
}

extension Sidecar {
    /// The `---` fenced YAML mapping at the top of `text` (nil when there is none, or it is not
    /// a mapping), and the text after it.
    static func frontMatter(
        of text: String, shown: String, warnings: inout [String]
    ) -> (Node.Mapping?, String) {
        guard text.utf8.count <= Self.textLimit else {
            warnings.append("\(shown): over \(Self.textLimit / 1024) KB; not read")
            return (nil, "")
        }
        // `\r\n` is one Character: split on every line break, Windows' too.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard lines.first?.trimmingWhitespace() == "---",
            let end = lines.dropFirst().firstIndex(where: { $0.trimmingWhitespace() == "---" })
        else { return (nil, text) }
        let yaml = lines[1..<end].joined(separator: "\n")
        let body = lines[(end + 1)...].joined(separator: "\n")
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch {
            warnings.append("\(shown): its front matter is not YAML (\(error)); only its text was read")
            return (nil, body)
        }
        guard let mapping = node?.mapping else {
            if node != nil { warnings.append("\(shown): its front matter is not a list of `key: value`; ignored") }
            return (nil, body)
        }
        return (mapping, body)
    }

    /// The keys an album's `index.md` may have in its front matter.
    package static let albumKeys = ["title", "cover", "sort"]

    /// What an album folder's `index.md` says: its title, cover and order in the front matter,
    /// its description (Markdown) after it. `shown` names the file in warnings; `cover` comes
    /// back as a path from the feed folder, `album` the album's own path (`2019/Iceland`).
    package static func albumNote(
        of file: URL, album: String, isAllowed: (URL) -> Bool = { _ in true }
    ) -> (note: AlbumNote?, warnings: [String]) {
        var reader = Sidecar()
        let shown = album + "/" + file.lastPathComponent
        guard let bytes = reader.read(file, shown: shown, isAllowed: isAllowed) else { return (nil, reader.warnings) }
        guard let source = String(strictUTF8: Array(bytes)) else {
            return (nil, reader.warnings + ["\(shown): not UTF-8 text; not read"])
        }
        let (mapping, body) = frontMatter(of: source, shown: shown, warnings: &reader.warnings)
        var (title, cover, order): (String?, String?, PhotoOrder?) = (nil, nil, nil)
        for (keyNode, value) in mapping ?? [:] {
            guard let key = keyNode.string else { continue }
            guard let text = value.scalar?.string else {
                reader.warnings.append("\(shown): `\(key)` is not text; ignored")
                continue
            }
            switch key {
            case "title": title = text
            case "cover": cover = text.isEmpty ? nil : album + "/" + text
            case "sort":
                order = PhotoOrder(rawValue: text)
                if order == nil {
                    reader.warnings.append(
                        "\(shown): `sort` is \"\(text.prefix(40))\"; use "
                            + PhotoOrder.allCases.map(\.rawValue).joined(separator: ", ") + "; ignored")
                }
            default:
                reader.warnings.append(
                    "\(shown): unknown front matter key `\(key)`; use \(albumKeys.joined(separator: ", "))")
            }
        }
        let note = AlbumNote(
            title: title, descriptionMarkdown: body.trimmingWhitespace(), cover: cover, order: order)
        return (note == AlbumNote() ? nil : note, reader.warnings)
    }
}
