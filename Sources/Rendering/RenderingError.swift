package import GalleryCore

/// A theme that cannot be used: a code, what is wrong and what to do, the template's line and
/// column when a template does not parse, and the template engine's error underneath.
package struct RenderingError: LocatedError {
    package enum Code: String, Sendable {
        /// The theme folder, or a template the site needs, is missing.
        case missingTemplate
        /// A template does not parse.
        case templateSyntax
        /// A theme file cannot be read.
        case unreadable
    }

    package var code: Code
    package var message: String
    package var location: SourceLocation?
    package var underlying: (any Error & Sendable)?

    package init(
        _ code: Code, _ message: String, location: SourceLocation? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.underlying = underlying
    }
}
