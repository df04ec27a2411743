import Foundation

/// The secrets a build is given (a feed's key, a bucket's secret key, the site's signing key),
/// and every form of each that a server's answer could repeat: as written, percent-encoded every
/// way, with `/` escaped as JSON writes it, and as a Basic token. Whatever the build writes or
/// says (pages, feeds, the manifest, the report, warnings, the console) passes through
/// ``apply(_:)``, so a secret a server echoes in a title, a caption, a listing's address or an
/// error message is published nowhere.
package struct Redaction: Sendable, Equatable {
    /// What stands where a secret was.
    package static let mark = "[redacted]"
    /// Secrets shorter than this are not searched for: `abc` would be found in every caption. A
    /// build is told so (``tooShort``).
    package static let shortest = 6

    /// Longest first, so that a form inside another is not taken out of it first.
    private let forms: [String]
    /// The secrets too short to be searched for.
    package let tooShort: Int

    package init(secrets: [String], extraForms: [String] = []) {
        var forms: Set<String> = []
        var tooShort = 0
        for secret in secrets where !secret.isEmpty {
            guard secret.count >= Self.shortest else {
                tooShort += 1
                continue
            }
            // Also as a path writes it, and as XML or HTML escapes it.
            forms.formUnion(secret.echoedForms)
            forms.formUnion([
                secret.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? secret,
                secret.replacingOccurrences(of: "&", with: "&amp;"),
            ])
        }
        forms.formUnion(extraForms.filter { $0.count >= Self.shortest })
        self.forms = forms.sorted { ($0.count, $0) > ($1.count, $1) }
        self.tooShort = tooShort
    }

    /// No secret to take out.
    package var isEmpty: Bool { forms.isEmpty }

    /// Whether `text` holds a secret in any of its forms.
    package func holds(_ text: String) -> Bool {
        !forms.isEmpty && forms.contains { text.contains($0) }
    }

    /// `text` with every form of every secret replaced by ``mark``.
    package func apply(_ text: String) -> String {
        guard holds(text) else { return text }
        var result = text
        for form in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: Self.mark)
        }
        return result
    }

    package func apply(_ text: String?) -> String? { text.map { apply($0) } }
}

extension String {
    /// This secret as an answer could repeat it: as written, percent-encoded every way (upper-
    /// and lower-case hex), and with `/` escaped as JSON writes it. What a request's credentials
    /// strip and search for (the loader's), and the start of what a build takes out of all it
    /// says (``Redaction``).
    package var echoedForms: Set<String> {
        let strict = percentEncodedStrictly(keepingSlash: false)
        return [
            self, strict, strict.lowercasingEscapes,
            addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? self,
            addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? self,
            replacingOccurrences(of: "/", with: "\\/"),
        ]
    }
}
