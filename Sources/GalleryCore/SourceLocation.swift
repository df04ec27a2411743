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

/// An error that points at a spot in an input file and may rest on another error: printed as
/// `feed.json:3:13: message (underlying)`, each part only when there is one. Each module's error
/// type adopts it for its printing; its code stays its own.
package protocol LocatedError: Error, Sendable, CustomStringConvertible {
    var message: String { get }
    var location: SourceLocation? { get }
    var underlying: (any Error & Sendable)? { get }
}

extension LocatedError {
    package var description: String {
        (location.map { "\($0): " } ?? "") + message + (underlying.map { " (\(describing($0)))" } ?? "")
    }
}

/// An underlying error in words: Foundation's in its localized sentence (its `description` is
/// `Error Domain=… Code=…`), ours and other libraries' by their own description.
package func describing(_ error: any Error) -> String {
    type(of: error) is NSError.Type || error is CocoaError ? error.localizedDescription : String(describing: error)
}
