import Testing

@testable import Loading

/// The `Cache-Control` directives the cache acts on, read from headers as servers write them.
@Suite struct CacheControlTests {
    @Test(arguments: [
        ("max-age=3600", 3600), ("MAX-AGE=60", 60), (#"max-age="60""#, 60), (" max-age = 60 ", 60),
        ("public, max-age=31536000, immutable", 31_536_000), ("max-age=+5", 5),
        // Malformed, negative or past Int's range: stale (§4.2.1).
        ("max-age=abc", 0), ("max-age=-5", 0), ("max-age=", 0), ("max-age", 0), ("max-age=99999999999999999999", 0),
        ("max-age=1.5", 0),
    ])
    func maxAge(header: String, seconds: Int) {
        #expect(CacheControl(header).maxAge == seconds, "\(header)")
    }

    @Test func eachDirectiveIsReadInAnyCaseAndAnyOrder() {
        let all = CacheControl("No-Cache,no-store, ,,IMMUTABLE,\tmust-revalidate\t, private, s-maxage=10")
        #expect(all.noCache && all.noStore && all.isPrivate)
        #expect(all.sharedMaxAge == 10 && all.maxAge == nil)
        #expect(CacheControl(nil) == CacheControl(""))
        #expect(CacheControl("no-cachex, maxage=5, private-ish") == CacheControl(nil), "only whole names")
        #expect(CacheControl("no\rcache, max\raGE=5") == CacheControl(nil), "letters folded, nothing else")
        #expect(CacheControl("max-age=10, max-age=20").maxAge == 20, "the last one, as before")
    }
}
