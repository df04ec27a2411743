package import Foundation
package import GalleryCore

/// Reads a feed of many pages, one after the other, into one ``FeedDocument``: the next page is
/// the one the page's body names (``FeedDocument/next``), else its `Link: rel="next"` header,
/// else, with `feed.paging.page_parameter`, the page numbered one more (until a page has no
/// entry). A page seen twice, more pages than `max_pages` or more entries than `max_entries`
/// stop the build with an error naming the page: a feed that pages forever never hangs it.
package struct FeedPages: Sendable {
    /// One page as fetched: its bytes, and its `Link` header.
    package typealias Page = (data: Data, link: String?)

    package var reader: FeedReader
    /// What is kept of a URL a page names (the feed's secret taken out of it, when the server
    /// echoes it).
    package var keep: @Sendable (URL) -> URL

    package init(reader: FeedReader, keep: @escaping @Sendable (URL) -> URL = { $0 }) {
        self.reader = reader
        self.keep = keep
    }

    private var paging: FeedPaging { reader.configuration.paging }

    /// The whole feed from `first`; `fetch` gets a page (and may throw whatever its transfer
    /// throws, passed on as it is).
    package func read(from first: URL, fetch: (URL) async throws -> Page) async throws -> FeedDocument {
        var url = keep(first)
        if let parameter = paging.pageParameter {
            url = Self.url(url, setting: parameter, to: String(paging.firstPage))
        }
        var whole = FeedDocument(photos: [])
        var seen: [String: Int] = [:]
        var entries = 0
        var number = 1
        while true {
            let name = url.absoluteString
            if let earlier = seen[name] {
                throw FeedError(
                    .wrongShape,
                    "\(name): page \(number) of the feed is page \(earlier) again; its next links go round in a circle")
            }
            seen[name] = number
            let page = try await fetch(url)
            let document = try reader.document(from: page.data, location: url, name: name, firstIndex: entries)
            entries += document.entryCount
            if entries > paging.maxEntries {
                throw FeedError(
                    .wrongShape,
                    "\(name): page \(number) brings the feed to \(entries) entries, over feed.paging.max_entries "
                        + "(\(paging.maxEntries)); raise it in gallery.yml if the feed is really that long")
            }
            if number == 1 { whole.title = document.title }
            whole.photos += document.photos
            whole.skipped += document.skipped.map { issue in
                number == 1 ? issue : FeedIssue(index: issue.index, message: "(page \(number)) \(issue.message)")
            }
            whole.albums.merge(document.albums) { first, _ in first }
            whole.warnings += document.warnings
            whole.postsLeftOut.merge(document.postsLeftOut, uniquingKeysWith: +)
            whole.entryCount = entries
            whole.isListing = document.isListing
            whole.listedETags.merge(document.listedETags) { first, _ in first }
            guard let found = nextPage(after: url, document: document, link: page.link) else {
                if whole.isListing { whole.photos = Self.inFolderOrder(whole.photos) }
                return whole
            }
            let next = keep(found)
            guard ["http", "https"].contains(next.scheme?.lowercased() ?? "") else {
                throw FeedError(
                    .wrongShape, "\(name): page \(number) names a next page that is no http(s) URL; not followed")
            }
            guard number < paging.maxPages else {
                throw FeedError(
                    .wrongShape,
                    "\(name): page \(number) of the feed names a next page (\(next.absoluteString.prefix(200))), "
                        + "over feed.paging.max_pages (\(paging.maxPages)); raise it in gallery.yml if the feed "
                        + "really has more pages")
            }
            url = next
            number += 1
        }
    }

    private func nextPage(after url: URL, document: FeedDocument, link: String?) -> URL? {
        if let parameter = paging.pageParameter {
            guard document.entryCount > 0 else { return nil }
            let current = Self.queryValue(parameter, in: url).flatMap(Int.init) ?? paging.firstPage
            return Self.url(url, setting: parameter, to: String(current + 1))
        }
        if let next = document.next { return next }
        return link.flatMap { Self.next(inLinkHeader: $0, base: url) }
    }

    /// A bucket's photos as a folder feed orders a folder's: each album's own photos, by name,
    /// before its sub-albums; positions renumbered.
    static func inFolderOrder(_ photos: [Photo]) -> [Photo] {
        var sorted = photos.sorted { left, right in
            if left.albumPath != right.albumPath {
                return left.albumPath.lexicographicallyPrecedes(right.albumPath)
            }
            return left.id < right.id
        }
        for index in sorted.indices { sorted[index].index = index }
        return sorted
    }

    // MARK: URLs

    /// The target of the `rel="next"` link in a `Link` header (RFC 8288): `<…>; rel="next"`,
    /// among others, the relation case-insensitive and one of several (`rel="next last"`).
    package static func next(inLinkHeader header: String, base: URL) -> URL? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = rest[rest.index(after: open)..<close]
            // The parameters run to the next link (a comma outside quotes) or the end.
            var index = rest.index(after: close)
            var quoted = false
            while index < rest.endIndex, quoted || rest[index] != "," {
                if rest[index] == "\"" { quoted.toggle() }
                index = rest.index(after: index)
            }
            let parameters = rest[rest.index(after: close)..<index]
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                    continue
                }
                let values = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                if values.split(separator: " ").contains(where: { $0.lowercased() == "next" }),
                    let url = URL(string: String(target), relativeTo: base)?.absoluteURL,
                    ["http", "https"].contains(url.scheme?.lowercased() ?? "")
                {
                    return url
                }
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return nil
    }

    /// `url` with the query parameter `name` set to `value` (replaced where it was, else added),
    /// the value encoded as RFC 3986 and S3 want it (a cursor's `+` as `%2B`); the rest of the
    /// query is kept exactly as written.
    package static func url(_ url: URL, setting name: String, to value: String) -> URL {
        let text = url.absoluteString
        let (head, fragment) = text.firstIndex(of: "#").map { (String(text[..<$0]), String(text[$0...])) } ?? (text, "")
        let (path, query) =
            head.firstIndex(of: "?").map { (String(head[..<$0]), String(head[head.index(after: $0)...])) }
            ?? (head, "")
        var pairs = query.split(separator: "&").map(String.init)
        let pair =
            name.percentEncodedStrictly(keepingSlash: false) + "=" + value.percentEncodedStrictly(keepingSlash: false)
        if let index = pairs.firstIndex(where: { Self.name(of: $0) == name }) {
            pairs[index] = pair
        } else {
            pairs.append(pair)
        }
        return URL(string: path + "?" + pairs.joined(separator: "&") + fragment) ?? url
    }

    /// `url` without the query parameters `names`; the rest of the query is kept exactly as
    /// written.
    package static func url(_ url: URL, removing names: Set<String>) -> URL {
        let text = url.absoluteString
        let (head, fragment) = text.firstIndex(of: "#").map { (String(text[..<$0]), String(text[$0...])) } ?? (text, "")
        guard let mark = head.firstIndex(of: "?") else { return url }
        let pairs = head[head.index(after: mark)...].split(separator: "&").map(String.init)
        let kept = pairs.filter { !names.contains(Self.name(of: $0)) }
        guard kept.count < pairs.count else { return url }
        return URL(string: head[..<mark] + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + fragment) ?? url
    }

    /// The decoded name of a query's `name=value` pair.
    private static func name(of pair: String) -> String {
        let key = String(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        return key.removingPercentEncoding ?? key
    }

    package static func queryValue(_ name: String, in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems?.first { $0.name == name }?.value
    }
}
