import Foundation

/// How a feed of many pages is followed (`feed.paging:` in gallery.yml; docs/feeds.md, "Pages").
///
/// Every page's own next link is followed without being asked: an HTTP `Link: <…>; rel="next"`
/// header, a JSON Feed's `next_url`, an Atom or RSS feed's `<atom:link rel="next">`. These
/// settings add the ways an API of its own says it: a field holding the next page's URL or a
/// cursor, or numbered pages; and the limits that make a feed paging forever an error.
package struct FeedPaging: Sendable, Equatable {
    /// A dotted path in each JSON page to the next page's URL, or to a cursor when
    /// ``cursorParameter`` is set.
    package var next: String?
    /// The query parameter the cursor found at ``next`` is sent in, on the feed's own URL.
    package var cursorParameter: String?
    /// Pages numbered by this query parameter, from ``firstPage``; the first page without an entry
    /// is the end.
    package var pageParameter: String?
    package var firstPage: Int
    /// More pages than this is an error naming the page, not a build that never ends.
    package var maxPages: Int
    /// More entries than this, over all pages, is an error too.
    package var maxEntries: Int
    /// Entries asked for a page, where the source lets gallerygen choose (an S3 listing's
    /// `max-keys`); nil: the source's own number.
    package var pageSize: Int?

    package static let defaultMaxPages = 1000
    package static let defaultMaxEntries = 1_000_000

    package init(
        next: String? = nil, cursorParameter: String? = nil, pageParameter: String? = nil, firstPage: Int = 1,
        maxPages: Int = Self.defaultMaxPages, maxEntries: Int = Self.defaultMaxEntries
    ) {
        self.next = next
        self.cursorParameter = cursorParameter
        self.pageParameter = pageParameter
        self.firstPage = firstPage
        self.maxPages = maxPages
        self.maxEntries = maxEntries
    }
}

/// A secret the feed's server asks for (`feed.auth:` in gallery.yml), named by the environment
/// variable that holds it; the secret itself is never written in gallery.yml, nor anywhere a
/// build writes.
package struct FeedCredentials: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// `Authorization: Bearer <secret>`.
        case bearer
        /// A header of the service's own (`X-Api-Key: <secret>`).
        case header(String)
        /// A query parameter (`?key=<secret>`).
        case query(String)
        /// HTTP Basic: this user, the secret its password.
        case basic(user: String)
    }

    package var kind: Kind
    /// The environment variable holding the secret.
    package var variable: String
    /// Where `feed.auth` is written in gallery.yml, for messages about it.
    package var location: SourceLocation?

    package init(kind: Kind, variable: String, location: SourceLocation? = nil) {
        self.kind = kind
        self.variable = variable
        self.location = location
    }
}
