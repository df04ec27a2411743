extension StringProtocol {
    /// The text as one line a page, a feed or a file name can carry: control characters (C0,
    /// DEL, C1; tabs and line breaks become spaces) and Unicode's noncharacters (U+FFFE, U+FFFF
    /// and the rest, which XML forbids) dropped. Feed text and config text pass through this on
    /// the way in.
    package func cleanedLine() -> String {
        // Printable ASCII, what nearly every title and URL is, has nothing to drop: one pass
        // over the bytes instead of a Unicode property lookup per scalar.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(self) }
        let scalars = unicodeScalars
        if scalars.allSatisfy({ !Self.isUnwanted($0) }) { return String(self) }
        var cleaned = String.UnicodeScalarView()
        for scalar in scalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: cleaned.append(" ")
            default: if !Self.isUnwanted(scalar) { cleaned.append(scalar) }
            }
        }
        return String(cleaned)
    }

    /// Whether the text shows nothing: empty, or only white space and characters that take no
    /// room (zero-width spaces and joiners, the byte-order mark, other default-ignorables).
    package var isVisiblyEmpty: Bool {
        unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }
    }

    private static func isUnwanted(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        return scalar.properties.isNoncharacterCodePoint
    }
}

extension StringProtocol {
    /// The text as a terminal may be given it: line breaks and tabs kept, every other control
    /// character (C0, DEL, C1: the escape that starts a terminal's colour, cursor and title
    /// sequences among them) shown as `�`, so that a server's message cannot drive the terminal.
    package var terminalSafe: String {
        if utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x09 }) { return String(self) }
        var cleaned = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            let value = scalar.value
            if (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value) {
                cleaned.append("\u{FFFD}")
            } else {
                cleaned.append(scalar)
            }
        }
        return String(cleaned)
    }
}
