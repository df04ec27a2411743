extension StringProtocol {
    /// The text without leading and trailing white space (Unicode's, line breaks included).
    ///
    /// `trimmingCharacters(in:)` goes through `CharacterSet`, which on Linux costs more than
    /// reading a whole feed entry; this is called for every title, URL and header value.
    package func trimmingWhitespace() -> String {
        // Text that begins and ends with a visible ASCII character has nothing to trim.
        let scalars = unicodeScalars
        if let first = scalars.first, let last = scalars.last, Self.isVisibleASCII(first), Self.isVisibleASCII(last) {
            return String(self)
        }
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(decoding: self[first...last].utf8, as: UTF8.self)
    }

    private static func isVisibleASCII(_ scalar: Unicode.Scalar) -> Bool { scalar.value > 0x20 && scalar.value < 0x7F }
}
