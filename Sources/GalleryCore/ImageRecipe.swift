/// What a rendition is made of besides the original's bytes: format, quality and the encoder's
/// version. Its fingerprint names output files, so a name never changes meaning and can be
/// cached forever.
package struct ImageRecipe: Sendable, Hashable {
    package var widths: [Int]
    package var formats: [ImageFormat]
    package var quality: Int
    package var effort: Int
    /// The libvips version string, so that a new encoder makes new names.
    package var encoderVersion: String

    package init(widths: [Int], formats: [ImageFormat], quality: Int, effort: Int, encoderVersion: String) {
        self.widths = Array(Set(widths)).sorted()
        self.formats = Array(Set(formats)).sorted()
        self.quality = quality
        self.effort = effort
        self.encoderVersion = encoderVersion
    }

    /// The text hashed with the original's SHA-256 to name the files of one format. JPEG ignores
    /// effort, so its names do not depend on it.
    package func fileKeyMaterial(originalSHA256: String, format: ImageFormat) -> String {
        let effortPart = format == .jpeg ? "" : "|e\(effort)"
        return "\(originalSHA256)|\(format.rawValue)|q\(quality)\(effortPart)|vips \(encoderVersion)"
    }

    /// The text hashed with the original's SHA-256 to name the whole set of renditions.
    package func setKeyMaterial(originalSHA256: String) -> String {
        let formatList = formats.map(\.rawValue).joined(separator: ",")
        let widthList = widths.map(String.init).joined(separator: ",")
        return "\(originalSHA256)|\(formatList)|\(widthList)|q\(quality)|e\(effort)|vips \(encoderVersion)"
    }
}
