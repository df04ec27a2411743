/// What a page is made from, as a SHA-256: its template set, its path and every stored value of
/// its view model (the renderer takes it). Two renders with the same fingerprint write the same
/// bytes, so a rebuild that finds the page on disk as the previous build left it need not render
/// it again. A thumbnail copied into the output has its SHA-256 for a fingerprint.
package struct PageFingerprint: Hashable, Sendable, CustomStringConvertible {
    package var words: (UInt64, UInt64, UInt64, UInt64)

    package init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The fingerprint written as `text`: 64 lower-case hex digits, as a SHA-256 in hex is; nil
    /// for anything else.
    package init?(hexText text: String) {
        guard text.utf8.count == 64 else { return nil }
        var values: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in text.utf8.enumerated() {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            values[offset / 16] = values[offset / 16] << 4 | UInt64(digit)
        }
        words = (values[0], values[1], values[2], values[3])
    }

    package var description: String {
        [words.0, words.1, words.2, words.3].map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.words == b.words
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

/// A page or thumbnail a build left in the output folder: what it was made from, and the status
/// its file had then (size, modification time to the nanosecond, inode). A file still with that
/// status is the one that build wrote.
package struct PageRecord: Sendable, Equatable {
    package var fingerprint: PageFingerprint
    package var stamp: FileStamp

    package init(fingerprint: PageFingerprint, stamp: FileStamp) {
        self.fingerprint = fingerprint
        self.stamp = stamp
    }
}
