import GalleryCore
import Loading

/// The published manifest's records signed with the site's key (`GALLERYGEN_REMOTE_CACHE_KEY`):
/// the MAC covers the record's own JSON as the manifest writes it, less the MAC, so every field
/// a seeded build takes (source, hashes, validators, names, sizes, placeholder) is covered.
extension ManifestPhoto {
    /// The record with its MAC made with `key`.
    func signed(with key: SigningKey) -> ManifestPhoto {
        var record = self
        record.mac = nil
        record.mac = key.mac(record.signedParts)
        return record
    }

    /// Whether the record carries a MAC that `key` made of it.
    func isSigned(by key: SigningKey) -> Bool {
        guard let mac else { return false }
        var unsigned = self
        unsigned.mac = nil
        return key.verify(mac, unsigned.signedParts)
    }

    private var signedParts: [String] {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return ["gallerygen-manifest", String(decoding: bytes, as: UTF8.self)]
    }
}
