import Foundation
import GalleryCore
import GalleryJSON

/// What the disk cache knows of one URL (shared/DESIGN.md, Loading): where the body is and every
/// header that freshness and revalidation need, exactly as the server sent them.
struct CacheRecord: Codable, Sendable, Equatable {
    var url: String
    var finalURL: String
    var redirects: [String] = []
    var status: Int
    var etag: String?
    var lastModified: String?
    var date: String?
    var age: String?
    var cacheControl: String?
    var expires: String?
    var vary: String?
    var contentType: String?
    var sha256: String
    var size: Int64
    /// The blob's modification time when it was verified, to notice a blob changed behind our back.
    var blobModified: Double
    /// When the response (200 or 304) was received: the base of its age.
    var responseTime: Double
    var fetchedAt: Double
    var validatedAt: Double
    /// For least-recently-used eviction.
    var lastUsed: Double

    enum CodingKeys: String, CodingKey {
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
    }

    var validators: Validators { Validators(etag: etag, lastModified: lastModified) }
    var hasValidators: Bool { !validators.isEmpty }

    /// RFC 9111 §4.2: fresh while its current age is below its freshness lifetime. Only an
    /// explicit lifetime counts (max-age, else Expires - Date): gallerygen uses no heuristic
    /// freshness, so that a rebuild always sees a change. `no-cache` is never fresh.
    ///
    /// `shared`: judged as a shared cache (the remote tier) judges it, `s-maxage` first.
    func isFresh(at now: Date, shared: Bool = false) -> Bool {
        let control = CacheControl(cacheControl)
        if control.noCache || control.noStore { return false }
        let lifetime =
            shared ? control.sharedMaxAge.map(Double.init) ?? freshnessLifetime(control) : freshnessLifetime(control)
        guard let lifetime else { return false }
        return lifetime > currentAge(at: now)
    }

    /// In seconds, as a Double: the dates come from servers and from the index on disk, and a
    /// difference past Int's range must not trap.
    private func freshnessLifetime(_ control: CacheControl) -> Double? {
        if let maxAge = control.maxAge { return Double(maxAge) }
        guard let expiresText = expires else { return nil }
        // An invalid Expires (like "0") means already expired (§5.3).
        guard let expiresDate = HTTPDate.parse(expiresText) else { return 0 }
        let dateValue = date.flatMap(HTTPDate.parse) ?? Date(timeIntervalSince1970: responseTime)
        return expiresDate.timeIntervalSince(dateValue)
    }

    /// §4.2.3, with the request time taken as the response time (the delay is negligible here).
    private func currentAge(at now: Date) -> Double {
        let ageValue = age.flatMap { Double($0.trimmingWhitespace()) } ?? 0
        let apparentAge = date.flatMap(HTTPDate.parse).map { max(0, responseTime - $0.timeIntervalSince1970) } ?? 0
        let residentTime = now.timeIntervalSince1970 - responseTime
        return max(apparentAge, ageValue) + residentTime
    }
}

extension CacheRecord {
    /// Reads a record of the index by hand (10,000 of them at the start of every build).
    init(json: JSONFields) throws(JSONFields.Mismatch) {
        url = try json.string(CodingKeys.url.stringValue)
        finalURL = try json.string(CodingKeys.finalURL.stringValue)
        redirects = try json.strings(CodingKeys.redirects.stringValue, required: false)
        status = try json.int(CodingKeys.status.stringValue)
        etag = try json.optionalString(CodingKeys.etag.stringValue)
        lastModified = try json.optionalString(CodingKeys.lastModified.stringValue)
        date = try json.optionalString(CodingKeys.date.stringValue)
        age = try json.optionalString(CodingKeys.age.stringValue)
        cacheControl = try json.optionalString(CodingKeys.cacheControl.stringValue)
        expires = try json.optionalString(CodingKeys.expires.stringValue)
        vary = try json.optionalString(CodingKeys.vary.stringValue)
        contentType = try json.optionalString(CodingKeys.contentType.stringValue)
        sha256 = try json.string(CodingKeys.sha256.stringValue)
        size = try json.int64(CodingKeys.size.stringValue)
        blobModified = try json.double(CodingKeys.blobModified.stringValue)
        responseTime = try json.double(CodingKeys.responseTime.stringValue)
        fetchedAt = try json.double(CodingKeys.fetchedAt.stringValue)
        validatedAt = try json.double(CodingKeys.validatedAt.stringValue)
        lastUsed = try json.double(CodingKeys.lastUsed.stringValue)
    }
}
