/// Command-line choices for one build; each overrides gallery.yml where both speak.
public struct BuildOptions: Sendable {
    /// `--output DIR`, relative to the current folder.
    public var output: String?
    /// `--strict`: any failed photo fails the build.
    public var strict = false
    /// `--refresh`: revalidate every cached URL, fresh or not.
    public var refresh = false
    /// `--offline`: send no request; build from the cache.
    public var offline = false
    public var concurrency: Int?
    public var perHost: Int?

    public init(
        output: String? = nil,
        strict: Bool = false,
        refresh: Bool = false,
        offline: Bool = false,
        concurrency: Int? = nil,
        perHost: Int? = nil
    ) {
        self.output = output
        self.strict = strict
        self.refresh = refresh
        self.offline = offline
        self.concurrency = concurrency
        self.perHost = perHost
    }
}
