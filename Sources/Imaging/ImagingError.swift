/// Why an image could not be turned into renditions; the message names the file.
public struct ImagingError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case initialisation
        case unsupportedFormat
        case tooManyPixels
        case decode
        case encode
        case write
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
