package import Foundation
package import GalleryCore
import Yams

/// Reads `gallery.yml` into a ``SiteConfig``: every key docs/configuration.md lists, the defaults for the
/// rest, and an error naming the line and column of anything unknown, mistyped or missing.
package struct ConfigLoader: Sendable {
    package static let fileName = "gallery.yml"

    /// The largest gallery.yml read: a site's settings fit in a few kilobytes.
    static let maxBytes: Int64 = 1 << 20

    package init() {}

    /// Reads `gallery.yml` in `siteDirectory`.
    package func config(inSite siteDirectory: URL) throws(ConfigError) -> SiteConfig {
        let file = siteDirectory.appendingPathComponent(Self.fileName)
        let data: Data
        do {
            data = try PlainFile.read(file, limit: Self.maxBytes)
        } catch {
            let message =
                error.kind == .missing
                ? "no \(Self.fileName) in \(siteDirectory.path); create one with at least `title:` and `feed:`"
                : "\(file.path) \(error.description)"
            throw ConfigError(.unreadable, file: Self.fileName, location: nil, message)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(.unreadable, file: Self.fileName, location: nil, "not UTF-8 text")
        }
        return try config(from: text, name: Self.fileName, siteDirectory: siteDirectory)
    }

    /// A control character (a NUL, an escape) has no place in gallery.yml, and YAML's own message
    /// would print it raw: named here by its code and spot.
    static func checkCharacters(of text: String, name: String) throws(ConfigError) {
        var line = 1
        var column = 1
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                line += 1
                column = 1
                continue
            }
            let value = scalar.value
            if (value < 0x20 && scalar != "\t" && scalar != "\r") || value == 0x7F
                || scalar.properties.isNoncharacterCodePoint
            {
                let code = String(value, radix: 16, uppercase: true)
                throw ConfigError(
                    .syntax, file: name, location: SourceLocation(file: name, line: line, column: column),
                    "a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)) "
                        + "has no place in \(name); remove it (is the file text?)")
            }
            column += 1
        }
    }

    /// A size as gallery.yml writes it (`500MB`, `2GiB`, `1048576`), in bytes.
    package static func byteCount(_ text: String) -> Int64? {
        ConfigReader.parseByteCount(text)
    }

    /// Parses the text of a config file; `name` is used in messages. `siteDirectory`: the folder
    /// it is in, where a theme of the site's own is looked for (its languages' files).
    package func config(from text: String, name: String, siteDirectory: URL? = nil) throws(ConfigError) -> SiteConfig {
        try Self.checkCharacters(of: text, name: name)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw ConfigError(
                    file: name, location: nil, "the file is empty; it needs at least `title:` and `feed:`")
            }
            root = node
        } catch let error as ConfigError {
            throw error
        } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
            throw Self.duplicateKeyError(duplicates, near: context.mark, in: text, name: name)
        } catch let error as YamlError {
            throw Self.syntaxError(error, name: name)
        } catch {
            throw ConfigError(
                .syntax, file: name, location: nil, "cannot read YAML", underlying: error)
        }
        var reader = ConfigReader(name: name, siteDirectory: siteDirectory)
        return try reader.siteConfig(from: root)
    }

    /// Yams names the duplicated keys and one of their places; the message points at the second
    /// occurrence (the one to remove or rename) and says where the first is.
    static func duplicateKeyError(_ keys: [String], near mark: Mark, in text: String, name: String) -> ConfigError {
        let key = keys.first ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The lines where `key:` starts at the column Yams gave, i.e. in the same mapping's indentation.
        let places = lines.enumerated().compactMap { offset, line -> Int? in
            let indent = line.prefix { $0 == " " }.count
            guard indent + 1 == mark.column else { return nil }
            let rest = line.dropFirst(indent)
            for spelling in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(spelling) {
                if rest.dropFirst(spelling.count).drop(while: { $0 == " " }).hasPrefix(":") { return offset + 1 }
            }
            return nil
        }
        guard places.count >= 2 else {
            return ConfigError(
                .duplicateKey, file: name, location: SourceLocation(file: name, line: mark.line, column: mark.column),
                "duplicate key \"\(key)\"; each key may appear once")
        }
        return ConfigError(
            .duplicateKey, file: name, location: SourceLocation(file: name, line: places[1], column: mark.column),
            "duplicate key \"\(key)\" (first at line \(places[0])); each key may appear once")
    }

    private static func syntaxError(_ error: YamlError, name: String) -> ConfigError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return ConfigError(
                .syntax,
                file: name,
                location: SourceLocation(file: name, line: mark.line, column: mark.column),
                "invalid YAML: \(problem)",
                underlying: error
            )
        default:
            return ConfigError(.syntax, file: name, location: nil, "invalid YAML", underlying: error)
        }
    }
}
