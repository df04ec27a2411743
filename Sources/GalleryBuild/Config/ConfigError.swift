import GalleryCore

/// A `gallery.yml` that cannot be used: exit code 2, with the file, line and column.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation?
    public var file: String
    public var message: String

    public init(file: String, location: SourceLocation?, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return "\(file): \(message)"
    }
}
