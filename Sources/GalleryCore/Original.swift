package import Foundation

/// The full-size bytes of one image, on disk and verified: what the Loading stage hands on.
package struct Original: Sendable, Hashable {
    /// The URL the bytes were asked for.
    package var source: CanonicalURL
    /// A file holding exactly the bytes; never modified once handed out.
    package var file: URL {
        get { URL(fileURLWithPath: filePath, isDirectory: false) }
        set { filePath = newValue.path }
    }
    /// ``file``'s path, held as a string: a build holds an original per URL to its end, and at
    /// 100,000 URLs their URL objects were 39 MB of its peak.
    package var filePath: String {
        get { folder.map { $0 + "/" + name } ?? name }
        set { (folder, name) = Self.split(newValue) }
    }
    /// ``filePath`` in two: the folder (nil when the path has no slash) and the name. A file in
    /// the cache shares both with others (the blobs folder's path, the hash), so that an
    /// original per URL holds no path of its own (145 bytes a URL, 13 MB at 100,000).
    private var folder: String?
    private var name: String
    /// Lower-case hex SHA-256 of the bytes.
    package var sha256: String
    package var byteCount: Int64
    package var contentType: String?
    package var validators: Validators
    /// How this build got the bytes.
    package var origin: Origin
    /// The server said `no-store`: `file` is a temporary file, deleted once the build has used it.
    package var isTransient: Bool
    /// What the user should know about these bytes (a stale copy used because the server failed).
    package var warning: String?

    package init(
        source: CanonicalURL,
        file: URL,
        sha256: String,
        byteCount: Int64,
        contentType: String? = nil,
        validators: Validators = Validators(),
        origin: Origin,
        isTransient: Bool = false
    ) {
        self.source = source
        (folder, name) = Self.split(file.path)
        self.sha256 = sha256
        self.byteCount = byteCount
        self.contentType = contentType
        self.validators = validators
        self.origin = origin
        self.isTransient = isTransient
    }

    /// An original in the cache's folder of files named by their hash (`folder/sha256`).
    package init(
        source: CanonicalURL, inBlobs folder: String, sha256: String, byteCount: Int64, contentType: String? = nil,
        validators: Validators = Validators(), origin: Origin
    ) {
        self.source = source
        self.folder = folder
        name = sha256
        self.sha256 = sha256
        self.byteCount = byteCount
        self.contentType = contentType
        self.validators = validators
        self.origin = origin
        isTransient = false
    }

    private static func split(_ path: String) -> (folder: String?, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (nil, path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// How a build got an original's bytes.
    package enum Origin: String, Sendable, Codable, Hashable {
        /// Read from a local file.
        case local
        /// Transferred in full (200).
        case downloaded
        /// Confirmed unchanged by the server (304).
        case revalidated
        /// Fresh in the cache: no request.
        case fresh
        /// Stale in the cache and the server failed: used with a warning.
        case stale
        /// `--offline`: taken from the cache without asking.
        case offline
        /// Confirmed unchanged (304) against validators recorded elsewhere (a published site's
        /// manifest, `seed:`, or the remote cache tier): the hash is known, the bytes were not
        /// fetched, and `file` may not exist.
        case seeded
        /// Fresh by the remote cache tier's record of the URL: no request; the hash is known, the
        /// bytes were not fetched, and `file` may not exist.
        case shared

        /// The build knows the bytes' hash but may not have the bytes.
        package var isBodiless: Bool { self == .seeded || self == .shared }
    }
}

/// HTTP validators exactly as the server sent them.
package struct Validators: Sendable, Hashable, Codable {
    /// The ETag header byte for byte, `W/` included.
    package var etag: String?
    /// The Last-Modified header verbatim.
    package var lastModified: String?

    package init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The server sent neither: nothing to revalidate with.
    package var isEmpty: Bool { etag == nil && lastModified == nil }

    package enum CodingKeys: String, CodingKey {
        case etag
        case lastModified = "last_modified"
    }
}

/// What a published site's manifest says of an original: its hash, and the validators its server
/// sent. A server that answers 304 to those validators vouches that the bytes are still these.
package struct KnownOriginal: Sendable, Hashable {
    package var sha256: String
    package var validators: Validators

    package init(sha256: String, validators: Validators) {
        self.sha256 = sha256
        self.validators = validators
    }
}
