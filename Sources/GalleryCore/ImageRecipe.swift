/// What a rendition is made of besides the original's bytes: format, quality and the encoder's
/// version. Its fingerprint names output files, so a name never changes meaning and can be
/// cached forever.
public struct ImageRecipe: Sendable, Hashable {
    public var widths: [Int]
    public var formats: [ImageFormat]
    public var quality: Int
    public var effort: Int
    /// The libvips version string, so that a new encoder makes new names.
    public var encoderVersion: String

    public init(widths: [Int], formats: [ImageFormat], quality: Int, effort: Int, encoderVersion: String) {
        self.widths = Array(Set(widths)).sorted()
        self.formats = Array(Set(formats)).sorted()
        self.quality = quality
        self.effort = effort
        self.encoderVersion = encoderVersion
    }

    /// The text hashed with the original's SHA-256 to name the files of one format. JPEG ignores
    /// effort, so its names do not depend on it.
    public func fileKeyMaterial(originalSHA256: String, format: ImageFormat) -> String {
        let effortPart = format == .jpeg ? "" : "|e\(effort)"
        return "\(originalSHA256)|\(format.rawValue)|q\(quality)\(effortPart)|vips \(encoderVersion)"
    }

    /// The text hashed with the original's SHA-256 to name the whole set of renditions.
    public func setKeyMaterial(originalSHA256: String) -> String {
        let formatList = formats.map(\.rawValue).joined(separator: ",")
        let widthList = widths.map(String.init).joined(separator: ",")
        return "\(originalSHA256)|\(formatList)|\(widthList)|q\(quality)|e\(effort)|vips \(encoderVersion)"
    }
}
