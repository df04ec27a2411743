import Foundation
import GalleryCore
import Metadata

/// The turn of a HEIF photo (HEIC, AVIF) that only its EXIF says. A HEIF file turns its image
/// with an `irot` (and mirrors it with an `imir`) property, which libheif applies as it decodes;
/// libvips then drops the EXIF Orientation, so that the photo is not turned twice. But a file
/// with no such property whose EXIF says to turn it (an iPhone 7 through a third-party camera
/// app) was shown sideways: for such a file the EXIF's turn is the one to apply.
enum HEIFOrientation {
    /// The EXIF orientation (2 to 8) to apply to the HEIF `file` whose EXIF block is `exif`; nil
    /// when there is none to apply (upright, a file libheif turns itself, or one not read).
    static func orientation(of file: URL, exif: UnsafeRawBufferPointer?) -> Int? {
        guard let exif, let orientation = exifOrientation(exif), orientation != 1 else { return nil }
        guard let head = PlainFile.head(of: file, count: 1 << 20), !head.isEmpty,
            let transforms = hasTransforms(in: [UInt8](head))
        else { return nil }
        return transforms ? nil : orientation
    }

    /// Whether the container's item properties (`meta` > `iprp` > `ipco`) hold an `irot` or an
    /// `imir`; nil when its boxes cannot be walked in `bytes`.
    static func hasTransforms(in bytes: [UInt8]) -> Bool? {
        func read32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        /// The boxes in `start..<end`: type and payload range.
        func boxes(_ start: Int, _ end: Int) -> [(String, Range<Int>)]? {
            var found: [(String, Range<Int>)] = []
            var offset = start
            while offset + 8 <= end {
                var size = read32(offset)
                var header = 8
                if size == 1 {
                    guard offset + 16 <= end else { return nil }
                    guard read32(offset + 8) == 0 else { return found }  // past 4 GiB: past what was read
                    size = read32(offset + 12)
                    header = 16
                } else if size == 0 {
                    size = end - offset
                }
                guard size >= header else { return nil }
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                found.append((type, (offset + header)..<min(offset + size, end)))
                offset += size
            }
            return found
        }
        guard let top = boxes(0, bytes.count), let meta = top.first(where: { $0.0 == "meta" })?.1,
            meta.count > 4, let inMeta = boxes(meta.lowerBound + 4, meta.upperBound),
            let iprp = inMeta.first(where: { $0.0 == "iprp" })?.1, let inIprp = boxes(iprp.lowerBound, iprp.upperBound),
            let ipco = inIprp.first(where: { $0.0 == "ipco" })?.1,
            let properties = boxes(ipco.lowerBound, ipco.upperBound)
        else { return nil }
        return properties.contains { $0.0 == "irot" || $0.0 == "imir" }
    }

    /// IFD0's Orientation in an EXIF block (with or without its `Exif\0\0` header, or a HEIF
    /// item's 4-byte offset before it).
    static func exifOrientation(_ block: UnsafeRawBufferPointer) -> Int? {
        let window = UnsafeRawBufferPointer(rebasing: block.prefix(1 << 16))
        guard
            let tiff = (0..<min(16, window.count)).lazy.compactMap({
                TIFFNumbers(UnsafeRawBufferPointer(rebasing: window[$0...]))
            }).first,
            let ifd = tiff.firstIFD, let count = tiff.read(ifd, 2)
        else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = tiff.read(at, 2) else { return nil }
            if tag == 0x0112, let value = tiff.read(at + 8, 2), (1...8).contains(value) { return value }
        }
        return nil
    }
}
