extension String {
    /// The text, safe for Mustache's HTML escaping.
    ///
    /// swift-mustache escapes `&`, `<`, `>`, `"` and `'` Character by Character, and a quote
    /// followed by a combining mark (`"\u{301}`), or preceded by a prepended one (`\u{600}"`), is a
    /// single Character that is none of them: it went out raw, and a feed title could close the
    /// `alt` attribute and add an `onmouseover`. A zero-width space (a grapheme break of its own)
    /// beside each such character makes it a Character of its own, which is then escaped; text
    /// without them is returned as it is.
    var escapableInTemplates: String {
        // Only text with both a special character and a non-ASCII one can hold such a cluster.
        guard utf8.contains(where: { $0 >= 0x80 }), utf8.contains(where: \.isHTMLSpecial) else {
            return self
        }
        var result = String.UnicodeScalarView()
        for character in self {
            let scalars = character.unicodeScalars
            guard scalars.count > 1, scalars.contains(where: { $0.isASCII && UInt8($0.value).isHTMLSpecial })
            else {
                result.append(contentsOf: scalars)
                continue
            }
            for scalar in scalars {
                if scalar.isASCII, UInt8(scalar.value).isHTMLSpecial {
                    result.append(contentsOf: ["\u{200B}", scalar, "\u{200B}"])
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }
}

extension UInt8 {
    /// `"`, `&`, `'`, `<` or `>`: the bytes HTML escaping replaces (in Mustache's `{{value}}`).
    var isHTMLSpecial: Bool {
        switch self {
        case 0x22, 0x26, 0x27, 0x3C, 0x3E: true
        default: false
        }
    }
}
