package import GalleryCore

/// A theme that cannot be used: what is wrong and what to do, the template's line and column when
/// a template does not parse, and the template engine's error underneath.
package typealias RenderingError = StageError<RenderingErrorCode>

package enum RenderingErrorCode: String, Sendable {
    /// The theme folder, or a template the site needs, is missing.
    case missingTemplate
    /// A template does not parse.
    case templateSyntax
    /// A theme file cannot be read.
    case unreadable
}
