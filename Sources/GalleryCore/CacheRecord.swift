import Foundation

/// What the disk cache knows of one URL (the Loading stage): where the body is and every
/// header that freshness and revalidation need, exactly as the server sent them.
package struct CacheRecord: Codable, Sendable, Equatable {
    package var url: String
    package var finalURL: String
    package var redirects: [String] = []
    package var status: Int
    package var etag: String?
    package var lastModified: String?
    package var date: String?
    package var age: String?
    package var cacheControl: String?
    package var expires: String?
    package var vary: String?
    package var contentType: String?
    package var sha256: String
    package var size: Int64
    /// The blob's modification time when it was verified, to notice a blob changed behind our back.
    package var blobModified: Double
    /// When the response (200 or 304) was received: the base of its age.
    package var responseTime: Double
    package var fetchedAt: Double
    package var validatedAt: Double
    /// For least-recently-used eviction.
    package var lastUsed: Double
    /// A feed page's `Link` header, where its next page may be named (kept for feeds only).
    package var link: String?

    package enum CodingKeys: String, CodingKey {
        case url, redirects, status, etag, date, age, vary, sha256, size
        case finalURL = "final_url"
        case lastModified = "last_modified"
        case cacheControl = "cache_control"
        case expires
        case contentType = "content_type"
        case blobModified = "blob_modified"
        case responseTime = "response_time"
        case fetchedAt = "fetched_at"
        case validatedAt = "validated_at"
        case lastUsed = "last_used"
        case link
    }

    package init(
        url: String, finalURL: String, redirects: [String] = [], status: Int, etag: String? = nil,
        lastModified: String? = nil, date: String? = nil, age: String? = nil, cacheControl: String? = nil,
        expires: String? = nil, vary: String? = nil, contentType: String? = nil, sha256: String, size: Int64,
        blobModified: Double, responseTime: Double, fetchedAt: Double,
        validatedAt: Double, lastUsed: Double, link: String? = nil
    ) {
        self.url = url
        self.finalURL = finalURL
        self.redirects = redirects
        self.status = status
        self.etag = etag
        self.lastModified = lastModified
        self.date = date
        self.age = age
        self.cacheControl = cacheControl
        self.expires = expires
        self.vary = vary
        self.contentType = contentType
        self.sha256 = sha256
        self.size = size
        self.blobModified = blobModified
        self.responseTime = responseTime
        self.fetchedAt = fetchedAt
        self.validatedAt = validatedAt
        self.lastUsed = lastUsed
        self.link = link
    }
}
