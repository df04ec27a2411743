package import GalleryCore

/// Why a build stopped: a code (the CLI turns codes into exit codes, in one place), what failed
/// and what to do, where (`gallery.yml:4:3`, `feed.json:12:5`), and the error underneath as a
/// value: nothing is flattened into a string until it is printed.
package struct BuildError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// `gallery.yml` or the command line is wrong (exit 2).
        case configuration
        /// The feed cannot be read or understood.
        case feed
        /// The Markdown intro cannot be read.
        case intro
        /// The theme cannot be loaded or rendered.
        case theme
        /// libvips could not start.
        case imaging
        /// The cache folder cannot be opened or written.
        case cache
        /// The site cannot be written to the output folder.
        case output
        /// A shard has no remote cache tier to hand its work to.
        case remoteCache
        /// SIGINT or SIGTERM, or a build superseded by a newer one (exit 130).
        case interrupted
    }

    package var code: Code
    /// What failed, and what to do; nil when the underlying error says it all.
    package var message: String?
    /// The spot in an input file, when there is one.
    package var location: SourceLocation?
    /// The error underneath (a ``ConfigError``, a feed's `FeedError`, a `LoadingError`, …).
    package var underlying: (any Error & Sendable)?
    /// The pipeline's step that failed (`write the site`), when the build got that far.
    package var step: String?

    package init(
        _ code: Code, _ message: String? = nil, location: SourceLocation? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.underlying = underlying
    }

    package static let interrupted = BuildError(.interrupted, "interrupted")

    /// A configuration error, as the build reports it.
    package static func configuration(_ error: ConfigError) -> BuildError {
        BuildError(.configuration, underlying: error)
    }

    /// The configuration error underneath, if this is one.
    package var configurationError: ConfigError? { underlying as? ConfigError }

    /// `location: message: underlying (step: name)`, each part only when there is one.
    package var description: String {
        var parts: [String] = []
        if let location { parts.append(location.description) }
        if let message { parts.append(message) }
        if let underlying { parts.append(describing(underlying)) }
        return parts.joined(separator: ": ") + (step.map { " (step: \($0))" } ?? "")
    }
}
