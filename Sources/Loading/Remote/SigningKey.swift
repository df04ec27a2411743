import Crypto
import Foundation

/// The site's secret for what it shares and publishes (`GALLERYGEN_REMOTE_CACHE_KEY`): every
/// remote cache object and every record of the published manifest carries an HMAC-SHA256 made
/// with it, so a build that holds the key takes only what a build with the same key wrote.
///
/// Without it, the remote tier's envelope and the manifest's hashes catch accidents only:
/// anyone who can write the store (or the live site) can change what a page shows.
package struct SigningKey: Sendable, Equatable {
    /// The environment variable that holds the secret.
    package static let variable = "GALLERYGEN_REMOTE_CACHE_KEY"

    /// The secret's bytes (`SymmetricKey` is not `Sendable`; one is made per MAC).
    private let secret: Data

    /// The SHA-256 of the secret: tells two keys apart without holding either.
    package var fingerprint: String { sha256Hex(of: secret) }

    /// The key from `secret` (its UTF-8 bytes), or nil when it is empty.
    package init?(secret text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        secret = Data(trimmed.utf8)
    }

    /// The key in `environment`, or nil when the variable is not set.
    package init?(environment: [String: String]) {
        guard let secret = environment[Self.variable] else { return nil }
        self.init(secret: secret)
    }

    /// The MAC, in lower-case hex, of a message made of `parts`, each preceded by its length so
    /// that no two lists of parts make the same message.
    package func mac(_ parts: [String]) -> String {
        var message = Data()
        for part in parts {
            let bytes = Data(part.utf8)
            message.append(Data("\(bytes.count):".utf8))
            message.append(bytes)
        }
        return hexString(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
    }

    /// Whether `mac` is the MAC of `parts`, compared in constant time.
    package func verify(_ mac: String, _ parts: [String]) -> Bool {
        let expected = Array(self.mac(parts).utf8)
        let given = Array(mac.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(expected, given) { difference |= left ^ right }
        return difference == 0
    }
}
