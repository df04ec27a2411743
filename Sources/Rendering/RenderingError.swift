/// A theme that cannot be used; the message names the folder or template.
public struct RenderingError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
