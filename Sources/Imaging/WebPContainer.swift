/// Edits the RIFF container of a WebP file.
enum WebPContainer {
    /// Chunks that hold metadata rather than pixels.
    private static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]

    /// The same WebP without its EXIF, XMP and ICC chunks, and with the extended header's flags
    /// for them cleared; the input unchanged when it is not a WebP file this understands.
    static func removingMetadata(from bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8)
        else { return bytes }
        var output: [UInt8] = Array(bytes[0..<12])
        output.reserveCapacity(bytes.count)
        var offset = 12
        while offset + 8 <= bytes.count {
            let name = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)  // chunks are padded to an even size
            guard end <= bytes.count || offset + 8 + size == bytes.count else { return bytes }
            let chunkEnd = min(end, bytes.count)
            if !metadataChunks.contains(name) {
                var chunk = Array(bytes[offset..<chunkEnd])
                if name == "VP8X", chunk.count > 8 {
                    // Flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02.
                    chunk[8] &= ~UInt8(0x20 | 0x08 | 0x04)
                }
                output += chunk
            }
            offset = chunkEnd
        }
        let riffSize = UInt32(output.count - 8)
        output[4] = UInt8(riffSize & 0xFF)
        output[5] = UInt8(riffSize >> 8 & 0xFF)
        output[6] = UInt8(riffSize >> 16 & 0xFF)
        output[7] = UInt8(riffSize >> 24 & 0xFF)
        return output
    }
}
