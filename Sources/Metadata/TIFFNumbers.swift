/// The numbers of a TIFF structure (an EXIF block is one), each read in the byte order its header
/// names and never past the block's end.
package struct TIFFNumbers {
    package let bytes: UnsafeRawBufferPointer
    package let bigEndian: Bool

    /// Nil unless `bytes` starts with a TIFF header: `MM` or `II`, then 42 in that byte order.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        self.bytes = bytes
        guard read(2, 2) == 42 else { return nil }
    }

    /// The unsigned number of `count` bytes (at most 4) at `at`; nil when they run out of the block.
    package func read(_ at: Int, _ count: Int) -> Int? {
        guard at >= 0, count <= 4, at + count <= bytes.count else { return nil }
        var value = 0
        for index in 0..<count { value = value << 8 | Int(bytes[bigEndian ? at + index : at + count - 1 - index]) }
        return value
    }

    /// Where the first IFD (IFD0) starts.
    package var firstIFD: Int? { read(4, 4) }
}
