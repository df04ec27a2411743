extension StringProtocol {
    /// The text as one line a page, a feed or a file name can carry: control characters (C0,
    /// DEL, C1; tabs and line breaks become spaces) and Unicode's noncharacters (U+FFFE, U+FFFF
    /// and the rest, which XML forbids) dropped. Feed text and config text pass through this on
    /// the way in.
    ///
    /// Text holding directional formatting characters (an override `U+202E`, an embedding, an
    /// isolate) is isolated: its closers without an opener dropped, its openers closed at its end,
    /// and the whole in a first-strong isolate (`U+2068` … `U+2069`), so that it cannot reorder
    /// the page around it.
    package func cleanedLine() -> String {
        // Printable ASCII, what nearly every title and URL is, has nothing to drop: one pass
        // over the bytes instead of a Unicode property lookup per scalar.
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(self) }
        let scalars = unicodeScalars
        if scalars.allSatisfy({ !Self.isUnwanted($0) && !Self.isDirectional($0) }) { return String(self) }
        var cleaned = String.UnicodeScalarView()
        for scalar in scalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: cleaned.append(" ")
            default: if !Self.isUnwanted(scalar) { cleaned.append(scalar) }
            }
        }
        return Self.isolated(cleaned)
    }

    /// Embeddings and overrides (U+202A-U+202E, closed by U+202C) and isolates (U+2066-U+2068,
    /// closed by U+2069).
    fileprivate static func isDirectional(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` balanced and wrapped in an isolate when it holds a directional formatting
    /// character; as it is otherwise. Isolating isolated text changes nothing.
    fileprivate static func isolated(_ whole: String.UnicodeScalarView) -> String {
        guard whole.contains(where: isDirectional) else { return String(whole) }
        // White space at the ends is trimmed inside the isolate, where a trim could not reach.
        let text = whole.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }
            .reversed()
        var out = String.UnicodeScalarView()
        // What is open, innermost last: true for an isolate, false for an embedding or override.
        var open: [Bool] = []
        // Whether the first scalar is an isolate that stays open until the last.
        var wrapped = text.first == "\u{2068}"
        for scalar in text {
            if wrapped, open.isEmpty, !out.isEmpty { wrapped = false }
            switch scalar.value {
            case 0x202A, 0x202B, 0x202D, 0x202E:
                open.append(false)
                out.append(scalar)
            case 0x2066, 0x2067, 0x2068:
                open.append(true)
                out.append(scalar)
            case 0x202C:
                // Closes the innermost embedding, if one is open inside the innermost isolate.
                guard open.last == false else { continue }
                open.removeLast()
                out.append(scalar)
            case 0x2069:
                // Closes the innermost isolate and what is open inside it.
                guard let isolate = open.lastIndex(of: true) else { continue }
                for _ in open[(isolate + 1)...] { out.append("\u{202C}") }
                open.removeSubrange(isolate...)
                out.append(scalar)
            default:
                out.append(scalar)
            }
        }
        for isIsolate in open.reversed() { out.append(isIsolate ? "\u{2069}" : "\u{202C}") }
        if wrapped { return String(out) }
        return "\u{2068}" + String(out) + "\u{2069}"
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

extension String {
    /// The text with its directional formatting characters balanced and the whole isolated
    /// (``StringProtocol/cleanedLine()``); as it is when it holds none.
    package var isolatingDirections: String {
        guard unicodeScalars.contains(where: { Self.isDirectional($0) }) else { return self }
        return Self.isolated(unicodeScalars)
    }
}
