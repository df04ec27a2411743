import Foundation
import GalleryCore

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
