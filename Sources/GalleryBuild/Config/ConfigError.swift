package import GalleryCore

/// A `gallery.yml` (or command line) that cannot be used: exit code 2. A code, what is wrong and
/// how to fix it, the file, line and column, and the YAML parser's error underneath when it
/// gave one.
package struct ConfigError: LocatedError {
    package enum Code: String, Sendable {
        /// No gallery.yml, or not UTF-8.
        case unreadable
        /// Not valid YAML.
        case syntax
        /// A key gallerygen does not know (often a typo; the message suggests the key meant).
        case unknownKey
        /// A required key is missing.
        case missingKey
        /// A key given twice.
        case duplicateKey
        /// A value of the wrong type, out of range, or naming something that is not there.
        case invalidValue
    }

    package var code: Code
    package var location: SourceLocation?
    package var file: String
    package var message: String
    package var underlying: (any Error & Sendable)?

    package init(
        _ code: Code = .invalidValue, file: String, location: SourceLocation?, _ message: String,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.file = file
        self.location = location
        self.message = message
        self.underlying = underlying
    }

    /// `gallery.yml:4:3: message`; without a spot, the underlying error's words follow.
    package var description: String {
        if let location { return "\(location): \(message)" }
        return "\(file): \(message)" + (underlying.map { " (\(describing($0)))" } ?? "")
    }
}
