import Crypto
import Foundation
import GalleryCore

/// What a page is made from, as a SHA-256: its template set, its path and every stored value of
/// its view model (the renderer takes it). Two renders with the same fingerprint write the same
/// bytes, so a rebuild that finds the page on disk as the previous build left it need not render
/// it again. A thumbnail copied into the output has its SHA-256 for a fingerprint.
package struct PageFingerprint: Hashable, Sendable, CustomStringConvertible {
    package var words: (UInt64, UInt64, UInt64, UInt64)

    package init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The fingerprint written as `text`: 64 lower-case hex digits, as a SHA-256 in hex is; nil
    /// for anything else.
    package init?(hexText text: String) {
        guard text.utf8.count == 64 else { return nil }
        var values: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in text.utf8.enumerated() {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            values[offset / 16] = values[offset / 16] << 4 | UInt64(digit)
        }
        words = (values[0], values[1], values[2], values[3])
    }

    package var description: String {
        [words.0, words.1, words.2, words.3].map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.words == b.words
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

extension PageFingerprint {
    init(digest: SHA256.Digest) {
        var values: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in digest.enumerated() {
            values[offset / 8] = values[offset / 8] << 8 | UInt64(byte)
        }
        self.init(words: (values[0], values[1], values[2], values[3]))
    }

    /// The fingerprint of `model` rendered with the templates `salt` stands for, at `path`.
    static func of(_ model: some Encodable, path: String, salt: [UInt8]) -> PageFingerprint {
        let encoder = FingerprintEncoder()
        encoder.bytes.reserveCapacity(4096)
        encoder.bytes += salt
        encoder.append(path)
        // Nothing a view model holds throws while encoding into bytes.
        try? model.encode(to: encoder)
        return PageFingerprint(digest: SHA256.hash(data: encoder.bytes))
    }
}

/// An `Encoder` that writes a value as bytes a fingerprint is taken of: each value with a tag,
/// strings with their length, keys by name, and every nested value between its own brackets, so
/// that two different values of one type never give the same bytes.
final class FingerprintEncoder: Encoder {
    var bytes: [UInt8] = []
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    enum Tag: UInt8 {
        case string = 1
        case integer, double, bool, null, open, close, key
    }

    func append(_ tag: Tag) {
        bytes.append(tag.rawValue)
    }

    func append(_ string: String) {
        var string = string
        append(.string)
        string.withUTF8 { utf8 in
            append(integer: UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    func append(integer: UInt64) {
        withUnsafeBytes(of: integer.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func append(optional string: String?) {
        if let string { append(string) } else { append(.null) }
    }

    /// A fingerprint's four words, as they are (a page key names its photos by theirs).
    func append(fingerprint: PageFingerprint) {
        for word in [fingerprint.words.0, fingerprint.words.1, fingerprint.words.2, fingerprint.words.3] {
            append(integer: word)
        }
    }

    func append(int value: Int) {
        append(.integer)
        append(integer: UInt64(bitPattern: Int64(value)))
    }

    func append(bool value: Bool) {
        append(.bool)
        bytes.append(value ? 1 : 0)
    }

    func append(key: some CodingKey) {
        append(.key)
        append(key.stringValue)
    }

    /// What a photo says, bracketed.
    func append(metadata: PhotoMetadata) {
        append(.open)
        for text in [metadata.title, metadata.description, metadata.alt] { append(optional: text) }
        append(int: metadata.keywords.count)
        for keyword in metadata.keywords { append(keyword) }
        append(optional: metadata.taken?.local)
        append(optional: metadata.taken?.offset)
        if let rating = metadata.rating { append(int: rating) } else { append(.null) }
        for text in [metadata.creator, metadata.rights, metadata.licence] { append(optional: text) }
        if let location = metadata.location {
            append(.double)
            append(integer: location.latitude.bitPattern)
            append(integer: location.longitude.bitPattern)
        } else {
            append(.null)
        }
        append(.close)
    }

    /// A nested value, bracketed.
    func append(nested value: some Encodable) throws {
        append(.open)
        try value.encode(to: self)
        append(.close)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        Unkeyed(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(encoder: self)
    }

    /// One value of any of the primitive kinds `Encoder` knows.
    fileprivate func appendPrimitive(_ value: Any) -> Bool {
        switch value {
        case let value as String: append(value)
        case let value as Bool: append(bool: value)
        case let value as Double:
            append(.double)
            append(integer: value.bitPattern)
        case let value as Float:
            append(.double)
            append(integer: Double(value).bitPattern)
        case let value as any BinaryInteger:
            append(.integer)
            append(integer: UInt64(truncatingIfNeeded: value))
        default: return false
        }
        return true
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: FingerprintEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {
            encoder.append(key: key)
            encoder.append(.null)
        }

        mutating func encode(_ value: String, forKey key: Key) throws {
            encoder.append(key: key)
            encoder.append(value)
        }

        mutating func encode(_ value: Int, forKey key: Key) throws {
            encoder.append(key: key)
            encoder.append(int: value)
        }

        mutating func encode(_ value: Bool, forKey key: Key) throws {
            encoder.append(key: key)
            encoder.append(bool: value)
        }

        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            encoder.append(key: key)
            if !encoder.appendPrimitive(value) { try encoder.append(nested: value) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            encoder.append(key: key)
            return KeyedEncodingContainer(Keyed<NestedKey>(encoder: encoder))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            encoder.append(key: key)
            return Unkeyed(encoder: encoder)
        }

        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            encoder.append(key: key)
            return encoder
        }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: FingerprintEncoder
        var codingPath: [any CodingKey] { [] }
        var count = 0

        mutating func encodeNil() throws {
            count += 1
            encoder.append(.null)
        }

        mutating func encode(_ value: String) throws {
            count += 1
            encoder.append(value)
        }

        mutating func encode(_ value: Int) throws {
            count += 1
            encoder.append(int: value)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            if !encoder.appendPrimitive(value) { try encoder.append(nested: value) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            count += 1
            return KeyedEncodingContainer(Keyed<NestedKey>(encoder: encoder))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            count += 1
            return Unkeyed(encoder: encoder)
        }

        mutating func superEncoder() -> any Encoder { encoder }
    }

    private struct Single: SingleValueEncodingContainer {
        let encoder: FingerprintEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { encoder.append(.null) }
        mutating func encode(_ value: String) throws { encoder.append(value) }
        mutating func encode(_ value: Int) throws { encoder.append(int: value) }
        mutating func encode(_ value: Bool) throws { encoder.append(bool: value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if !encoder.appendPrimitive(value) { try encoder.append(nested: value) }
        }
    }
}

extension GalleryItem {
    /// Every stored value of the item, its photo and its image, written by hand: `Encodable`
    /// took about 20 µs an item, the most of a no-change rebuild's render at 100,000 photos.
    /// PageFingerprintTests checks, by Mirror, that no stored value is left out.
    /// `includingIndex`: false leaves out the photo's place in the feed, for a page key that
    /// does not show it (``PageKeys``).
    func writeFingerprint(to encoder: FingerprintEncoder, includingIndex: Bool = true) {
        encoder.append(.open)
        if includingIndex { encoder.append(int: photo.index) } else { encoder.append(.null) }
        encoder.append(photo.id)
        encoder.append(photo.title)
        encoder.append(photo.source.absoluteString)
        encoder.append(int: photo.albumPath.count)
        for name in photo.albumPath { encoder.append(name) }
        encoder.append(optional: photo.link?.absoluteString)
        if let date = photo.date {
            encoder.append(.double)
            encoder.append(integer: date.timeIntervalSinceReferenceDate.bitPattern)
        } else {
            encoder.append(.null)
        }
        encoder.append(bool: photo.hasFeedID)
        encoder.append(bool: photo.titleIsFileName)
        encoder.append(metadata: photo.metadata)
        encoder.append(optional: photo.captionMarkdown)
        // Only for a Live Photo: other photos' fingerprints stay what earlier versions made them.
        if let motion = photo.motion { encoder.append(motion.absoluteString) }
        // Only for a photo behind a content warning, after a key no other value writes.
        if let warning = photo.contentWarning {
            encoder.append(.key)
            encoder.append("contentWarning")
            encoder.append(warning)
        }
        if let image {
            encoder.append(.open)
            encoder.append(int: image.width)
            encoder.append(int: image.height)
            encoder.append(int: image.renditions.count)
            for rendition in image.renditions {
                encoder.append(rendition.format.rawValue)
                encoder.append(int: rendition.width)
                encoder.append(int: rendition.height)
                encoder.append(rendition.path)
                encoder.append(int: Int(rendition.byteCount))
                encoder.append(optional: rendition.sha256)
            }
            encoder.append(image.placeholder.color)
            encoder.append(image.placeholder.dataURI)
            encoder.append(bool: image.hasTransparency)
            if let camera = image.camera {
                encoder.append(.open)
                for part in [
                    camera.camera, camera.lens, camera.focalLength, camera.aperture, camera.exposure, camera.iso,
                    camera.taken,
                ] {
                    encoder.append(optional: part)
                }
                encoder.append(.close)
            } else {
                encoder.append(.null)
            }
            if let metadata = image.metadata { encoder.append(metadata: metadata) } else { encoder.append(.null) }
            // Only for a Live Photo and for a clip: a photo's fingerprint stays what earlier versions
            // made it.
            if !image.motion.isEmpty {
                encoder.append(.open)
                for rendition in image.motion {
                    encoder.append(rendition.format.rawValue)
                    encoder.append(int: rendition.width)
                    encoder.append(int: rendition.height)
                    encoder.append(rendition.path)
                }
                encoder.append(.close)
            }
            if let video = image.video {
                encoder.append(.open)
                encoder.append(integer: video.duration.bitPattern)
                encoder.append(bool: video.hasAudio)
                encoder.append(video.recipe)
                encoder.append(.close)
            }
            encoder.append(.close)
        } else {
            encoder.append(.null)
        }
        encoder.append(optional: failure)
        encoder.append(sourceName)
        encoder.append(optional: captionHTML)
        if let download {
            encoder.append(.open)
            encoder.append(download.path)
            encoder.append(download.fileName)
            encoder.append(int: Int(download.byteCount))
            encoder.append(download.kind)
            if let count = download.photoCount { encoder.append(int: count) } else { encoder.append(.null) }
            encoder.append(.close)
        } else {
            encoder.append(.null)
        }
        encoder.append(.close)
    }
}
