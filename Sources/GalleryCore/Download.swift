/// What a photo's download button gives (`downloads:`).
package enum DownloadChoice: String, Sendable, CaseIterable, Encodable {
    /// No button and no album zip (the default).
    case off
    /// The largest rendition the site already has.
    case largest
    /// The photographer's own file, as loaded (its place removed unless `location: exact`).
    case original
}

/// One file a visitor can download: a photo's, or an album's zip.
package struct Download: Sendable, Hashable, Encodable {
    /// Relative to the output folder.
    package var path: String
    /// The name the browser saves it under.
    package var fileName: String
    package var byteCount: Int64
    /// What it is, for the button: `JPEG`, `HEIC`, `ZIP`.
    package var kind: String
    /// The photos an album's zip holds.
    package var photoCount: Int?

    package init(path: String, fileName: String, byteCount: Int64, kind: String, photoCount: Int? = nil) {
        self.path = path
        self.fileName = fileName
        self.byteCount = byteCount
        self.kind = kind
        self.photoCount = photoCount
    }
}

/// The kinds of file an original may be, told by its first bytes.
package enum OriginalKind: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, tiff, heic, avif, jxl

    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        default: rawValue
        }
    }

    /// What the button says: `JPEG`, `HEIC`.
    package var label: String { rawValue.uppercased() }

    /// The kind `bytes` (a file's first 12 or more) start as; nil when none of these.
    package init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47]) {
            self = .png
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("GIF8".utf8)) {
            self = .gif
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            self = .jxl
        } else if starts(Array("ftyp".utf8), at: 4) {
            let brand = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
            if brand.hasPrefix("avi") { self = .avif } else { self = .heic }
        } else {
            return nil
        }
    }
}
