import Foundation
import GalleryCore

/// The directives of a `Cache-Control` header that decide what a cache may do (RFC 9111 §5.2.2).
struct CacheControl: Equatable {
    var maxAge: Int?
    /// The lifetime for shared caches (the remote tier), over max-age and Expires (§5.2.2.10).
    var sharedMaxAge: Int?
    var noCache = false
    var noStore = false
    /// For one user only: a shared cache (the remote tier) must not keep it (§5.2.2.7).
    var isPrivate = false

    /// Read byte by byte, with no allocation: every cached URL's header is read at least once a
    /// build (100,000 of them took a tenth of a second split into strings).
    init(_ header: String?) {
        guard var header else { return }
        self = header.withUTF8(Self.parse)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheControl {
        var control = CacheControl(nil)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
            var equals = start
            while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            let name = trimmed(bytes, start..<equals)
            // A malformed max-age is treated as stale (§5.2.2.1 and §4.2.1): 0.
            func seconds() -> Int {
                guard equals < end else { return 0 }
                var value = trimmed(bytes, (equals + 1)..<end)
                while value.first.map({ bytes[$0] }) == UInt8(ascii: "\"") { value = value.dropFirst() }
                while value.last.map({ bytes[$0] }) == UInt8(ascii: "\"") { value = value.dropLast() }
                // `Int(String)` as before; a value of up to 15 bytes is a small string, no allocation.
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                return max(0, Int(text) ?? 0)
            }
            if matches(bytes, name, "max-age") {
                control.maxAge = seconds()
            } else if matches(bytes, name, "s-maxage") {
                control.sharedMaxAge = seconds()
            } else if matches(bytes, name, "no-cache") {
                control.noCache = true
            } else if matches(bytes, name, "no-store") {
                control.noStore = true
            } else if matches(bytes, name, "private") {
                control.isPrivate = true
            }
            start = end + 1
        }
        return control
    }

    /// `range` without the spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var (lower, upper) = (range.lowerBound, range.upperBound)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while lower < upper, isSpace(bytes[lower]) { lower += 1 }
        while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Whether the bytes of `range` are `name`, in any case (directive names are
    /// case-insensitive).
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool
    {
        guard range.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            zip(range, expected).allSatisfy { index, byte in lowercased(bytes[index]) == byte }
        }
    }

    /// An ASCII letter in lower case; any other byte as it is.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
