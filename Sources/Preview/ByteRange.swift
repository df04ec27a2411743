import GalleryCore

/// A `Range` request header as RFC 9110 (section 14) reads it, for the preview's files: one
/// range of bytes is served as asked (clipped to the file), a range the file cannot satisfy is
/// answered 416 with `Content-Range: bytes */SIZE`, and a header that is not a byte range (or
/// asks for several, which a preview has no use for) is ignored: the whole file, 200.
enum ByteRange: Equatable {
    /// `bytes=FIRST-LAST` or `bytes=FIRST-`.
    case from(Int, through: Int?)
    /// `bytes=-COUNT`: the last COUNT bytes.
    case suffix(Int)

    /// The range a header asks for, or nil when the header is to be ignored.
    init?(header: String) {
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let specs = trimmed.dropFirst("bytes=".count).split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return nil }
        let spec = specs[0].trimmingWhitespace()
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(text)
        }
        if first.isEmpty {
            guard let count = number(last) else { return nil }
            self = .suffix(count)
        } else {
            guard let start = number(first) else { return nil }
            if last.isEmpty {
                self = .from(start, through: nil)
            } else {
                guard let end = number(last), end >= start else { return nil }
                self = .from(start, through: end)
            }
        }
    }

    /// The bytes to send of a file of `size` bytes, or nil when none can be (416).
    func bytes(ofFileOfSize size: Int) -> ClosedRange<Int>? {
        switch self {
        case .from(let start, let end):
            guard start < size else { return nil }
            return start...min(end ?? (size - 1), size - 1)
        case .suffix(let count):
            guard count > 0, size > 0 else { return nil }
            return max(0, size - count)...(size - 1)
        }
    }
}
