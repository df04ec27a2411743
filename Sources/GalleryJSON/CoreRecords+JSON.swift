package import Foundation
package import GalleryCore

// The core's records read by hand: a published manifest (a seed's, up to 85 MB at 100,000
// photos), the remote cache's thumbnail-set objects and the records of a cache written before
// the build store. Rebuilds read their own state from the store; when these readers were
// written, JSONDecoder took most of a 10,000-photo rebuild's start.

extension Manifest {
    /// Reads a manifest.
    package static func decode(_ data: Data) throws -> Manifest {
        let json = try JSONFields.parse(data)
        return Manifest(
            version: try json.int(CodingKeys.version.stringValue),
            photos: try json.objects(CodingKeys.photos.stringValue, ManifestPhoto.init(json:)),
            files: try json.strings(CodingKeys.files.stringValue)
        )
    }
}

extension Manifest {
    /// The file list of a manifest, its photos skipped unread: what a build needs of the previous
    /// build's manifest (which files to remove). Nil when the data is not a manifest.
    package static func fileList(of data: Data) -> [String]? {
        guard let members = try? JSONParser.parseMembers([CodingKeys.files.stringValue], of: [UInt8](data)),
            case .array(let items)? = members[CodingKeys.files.stringValue]
        else { return nil }
        var files: [String] = []
        files.reserveCapacity(items.count)
        for item in items {
            guard case .string(let file) = item else { return nil }
            files.append(file)
        }
        return files
    }
}

extension ManifestPhoto {
    package init(json: JSONFields) throws(JSONFields.Mismatch) {
        self.init(
            id: try json.string(CodingKeys.id.stringValue),
            source: try json.string(CodingKeys.source.stringValue),
            sha256: try json.optionalString(CodingKeys.sha256.stringValue),
            validators: try json.optionalObject(CodingKeys.validators.stringValue).map(Validators.init(json:)),
            renditions: try json.objects(CodingKeys.renditions.stringValue, Rendition.init(json:)),
            error: try json.optionalString(CodingKeys.error.stringValue)
        )
        width = try json.optionalInt(CodingKeys.width.stringValue)
        height = try json.optionalInt(CodingKeys.height.stringValue)
        placeholder = try json.optionalObject(CodingKeys.placeholder.stringValue).map(Placeholder.init(json:))
        hasTransparency = try json.optionalBool(CodingKeys.hasTransparency.stringValue)
        camera = try json.optionalObject(CodingKeys.camera.stringValue).map(CameraDetails.init(json:))
        mac = try json.optionalString(CodingKeys.mac.stringValue)
    }
}

extension Placeholder {
    package init(json: JSONFields) throws(JSONFields.Mismatch) {
        self.init(
            color: try json.string(CodingKeys.color.stringValue),
            dataURI: try json.string(CodingKeys.dataURI.stringValue))
    }
}

extension CameraDetails {
    package init(json fields: JSONFields) throws(JSONFields.Mismatch) {
        self.init(
            camera: try fields.optionalString(CodingKeys.camera.stringValue),
            lens: try fields.optionalString(CodingKeys.lens.stringValue),
            focalLength: try fields.optionalString(CodingKeys.focalLength.stringValue),
            aperture: try fields.optionalString(CodingKeys.aperture.stringValue),
            exposure: try fields.optionalString(CodingKeys.exposure.stringValue),
            iso: try fields.optionalString(CodingKeys.iso.stringValue),
            taken: try fields.optionalString(CodingKeys.taken.stringValue))
    }
}

extension Validators {
    package init(json: JSONFields) throws(JSONFields.Mismatch) {
        self.init(
            etag: try json.optionalString(CodingKeys.etag.stringValue),
            lastModified: try json.optionalString(CodingKeys.lastModified.stringValue)
        )
    }
}

extension Rendition {
    package init(json: JSONFields) throws(JSONFields.Mismatch) {
        self.init(
            format: try json.value(CodingKeys.format.stringValue, expected: "avif, webp or jpeg"),
            width: try json.int(CodingKeys.width.stringValue),
            height: try json.int(CodingKeys.height.stringValue),
            path: try json.string(CodingKeys.path.stringValue),
            byteCount: try json.int64(CodingKeys.byteCount.stringValue),
            sha256: try json.optionalString(CodingKeys.sha256.stringValue)
        )
    }
}

extension ProcessedImage {
    package init(json: JSONFields) throws(JSONFields.Mismatch) {
        let placeholder = try json.object(CodingKeys.placeholder.stringValue)
        self.init(
            width: try json.int(CodingKeys.width.stringValue),
            height: try json.int(CodingKeys.height.stringValue),
            renditions: try json.objects(CodingKeys.renditions.stringValue, Rendition.init(json:)),
            placeholder: try Placeholder(json: placeholder),
            // Required: a record written before it was measured is read as a miss and made again.
            hasTransparency: try json.bool(CodingKeys.hasTransparency.stringValue),
            camera: try json.optionalObject(CodingKeys.camera.stringValue).map(CameraDetails.init(json:))
        )
    }

    /// A thumbnail set's record: the first line of a remote cache's set object, and the
    /// `renditions/<key>.json` of a cache written before the build store.
    package static func decode(_ data: Data) throws -> ProcessedImage {
        try ProcessedImage(json: JSONFields.parse(data))
    }

    /// A rendition record with the stamps of its files as the cache wrote them (`stamps`, nil in
    /// a record written before they were kept).
    package static func decodeRecord(_ data: Data) throws -> (image: ProcessedImage, stamps: String?) {
        let json = try JSONFields.parse(data)
        return (try ProcessedImage(json: json), try json.optionalString("stamps"))
    }
}
