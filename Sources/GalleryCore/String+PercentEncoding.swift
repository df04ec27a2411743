extension String {
    /// Percent-encoded as RFC 3986 and AWS want it: everything but the unreserved characters
    /// (letters, digits, `-`, `_`, `.`, `~`), and `/` when `keepingSlash`, in upper-case hex.
    /// S3 object keys in paths, cursors in queries.
    package func percentEncodedStrictly(keepingSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                bytes.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// The text with each percent escape's hex digits in lower case (`%2f`), as some encoders
    /// write them: one more form a secret may come back in.
    package var lowercasingEscapes: String {
        var result = ""
        var escape = 0
        for character in self {
            if character == "%" {
                escape = 2
                result.append(character)
            } else if escape > 0 {
                escape -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
