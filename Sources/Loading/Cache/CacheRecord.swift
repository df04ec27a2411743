import Foundation
import GalleryCore

/// What the disk cache knows of one URL: where the body is and every
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

/// Freshness and validators of a URL record (RFC 9111), as the loader judges them.
extension CacheRecord {
    var validators: Validators { Validators(etag: etag, lastModified: lastModified) }
    var hasValidators: Bool { !validators.isEmpty }

    /// RFC 9111 §4.2: fresh while its current age is below its freshness lifetime. Only an
    /// explicit lifetime counts (max-age, else Expires - Date): gallerygen uses no heuristic
    /// freshness, so that a rebuild always sees a change. `no-cache` is never fresh.
    ///
    /// `shared`: judged as a shared cache (the remote tier) judges it, `s-maxage` first.
    func isFresh(at now: Date, shared: Bool = false) -> Bool {
        freshUntil(shared: shared).map { now.timeIntervalSince1970 < $0 } ?? false
    }

    /// Seconds since 1970 until which ``isFresh(at:shared:)`` holds; nil when it never does. The
    /// current age at `now` is the age at the response plus the time since (§4.2.3), so the
    /// record is fresh until the response time plus what its lifetime leaves of that age.
    func freshUntil(shared: Bool = false) -> Double? {
        let control = CacheControl(cacheControl)
        if control.noCache || control.noStore { return nil }
        let lifetime =
            shared ? control.sharedMaxAge.map(Double.init) ?? freshnessLifetime(control) : freshnessLifetime(control)
        guard let lifetime else { return nil }
        return responseTime + lifetime - ageAtResponse
    }

    /// In seconds, as a Double: the dates come from servers and from the build store, and a
    /// difference past Int's range must not trap.
    private func freshnessLifetime(_ control: CacheControl) -> Double? {
        if let maxAge = control.maxAge { return Double(maxAge) }
        guard let expiresText = expires else { return nil }
        // An invalid Expires (like "0") means already expired (§5.3).
        guard let expiresDate = HTTPDate.parse(expiresText) else { return 0 }
        let dateValue = date.flatMap(HTTPDate.parse) ?? Date(timeIntervalSince1970: responseTime)
        return expiresDate.timeIntervalSince(dateValue)
    }

    /// §4.2.3's corrected initial age, with the request time taken as the response time (the
    /// delay is negligible here).
    private var ageAtResponse: Double {
        let ageValue = age.flatMap { Double($0.trimmingWhitespace()) } ?? 0
        let apparentAge = date.flatMap(HTTPDate.parse).map { max(0, responseTime - $0.timeIntervalSince1970) } ?? 0
        return max(apparentAge, ageValue)
    }
}
