import Foundation

/// A spot in an input file, for messages of the form `gallery.yml:12:3: ...`.
package struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int

    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    package var description: String { "\(file):\(line):\(column)" }
}

/// The one shape of a stage's error: a code of the stage's own, what is wrong and what to do,
/// the spot in an input file when there is one, and the error underneath as a value. Printed as
/// `feed.json:3:13: message (underlying)`, each part only when there is one; a stage whose errors
/// say more (a loading error's URL, a config error's file) prints its own way.
package protocol LocatedError: Error, Sendable, CustomStringConvertible {
    associatedtype Code: Sendable
    var code: Code { get }
    var message: String { get }
    var location: SourceLocation? { get }
    var underlying: (any Error & Sendable)? { get }
}

extension LocatedError {
    package var description: String {
        (location.map { "\($0): " } ?? "") + detail
    }

    /// The message with the underlying error's words: `cannot write a.webp (No space left)`.
    package var detail: String {
        message + (underlying.map { " (\(describing($0)))" } ?? "")
    }
}

/// A stage's error of the one shape (``LocatedError``), over the stage's own codes:
/// `FeedError` is `StageError<FeedErrorCode>`, `RenderingError` `StageError<RenderingErrorCode>`.
package struct StageError<Code: Sendable & Hashable>: LocatedError {
    package var code: Code
    /// What is wrong, and what to do about it.
    package var message: String
    /// The spot in an input file, when there is one.
    package var location: SourceLocation?
    /// The error underneath (the file system's, another library's), when another error caused it.
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

/// An underlying error in words: Foundation's in its localized sentence (its `description` is
/// `Error Domain=… Code=…`), ours and other libraries' by their own description.
package func describing(_ error: any Error) -> String {
    type(of: error) is NSError.Type || error is CocoaError ? error.localizedDescription : String(describing: error)
}
