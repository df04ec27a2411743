import Foundation
import GalleryCore

/// The directives of a `Cache-Control` header that decide what a cache may do (RFC 9111 §5.2.2).
struct CacheControl: Equatable {
    var maxAge: Int?
    /// The lifetime for shared caches (the remote tier), over max-age and Expires (§5.2.2.10).
    var sharedMaxAge: Int?
    var noCache = false
    var noStore = false
    var immutable = false
    var mustRevalidate = false
    /// For one user only: a shared cache (the remote tier) must not keep it (§5.2.2.7).
    var isPrivate = false

    init(_ header: String?) {
        guard let header else { return }
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            guard let name = pieces.first?.lowercased() else { continue }
            let value = pieces.count > 1 ? unquoted(pieces[1]) : nil
            switch name {
            // A malformed max-age is treated as stale (§5.2.2.1 and §4.2.1): 0.
            case "max-age": maxAge = value.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            case "s-maxage": sharedMaxAge = value.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "immutable": immutable = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "private": isPrivate = true
            default: break
            }
        }
    }

    /// A quoted-string's content (`max-age="60"` is read as 60).
    private func unquoted(_ text: String) -> Substring {
        var value = text[...]
        while value.first == "\"" { value.removeFirst() }
        while value.last == "\"" { value.removeLast() }
        return value
    }
}
