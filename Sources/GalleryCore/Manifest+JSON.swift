/// The manifest's records written by hand, byte for byte as JSONEncoder writes them with sorted
/// keys and unescaped slashes (ManifestTests holds the two together): JSONEncoder took about
/// 20 µs a record, a second and a half of every build at 100,000 photos.
extension ManifestPhoto {
    package func appendJSON(to bytes: inout [UInt8]) {
        var object = JSONObjectWriter(&bytes)
        if let camera {
            object.key("camera", &bytes)
            var inner = JSONObjectWriter(&bytes)
            inner.string("aperture", camera.aperture, &bytes)
            inner.string("camera", camera.camera, &bytes)
            inner.string("exposure", camera.exposure, &bytes)
            inner.string("focal_length", camera.focalLength, &bytes)
            inner.string("iso", camera.iso, &bytes)
            inner.string("lens", camera.lens, &bytes)
            inner.string("taken", camera.taken, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        object.string("error", error, &bytes)
        object.integer("height", height, &bytes)
        object.string("id", id, &bytes)
        object.string("mac", mac, &bytes)
        if let metadata {
            object.key("metadata", &bytes)
            var inner = JSONObjectWriter(&bytes)
            inner.string("alt", metadata.alt, &bytes)
            inner.string("creator", metadata.creator, &bytes)
            inner.string("description", metadata.description, &bytes)
            if !metadata.keywords.isEmpty {
                inner.key("keywords", &bytes)
                bytes.append(UInt8(ascii: "["))
                for (offset, keyword) in metadata.keywords.enumerated() {
                    if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                    RecordLines.appendJSON(keyword, to: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
            inner.string("licence", metadata.licence, &bytes)
            if let location = metadata.location {
                inner.key("location", &bytes)
                var point = JSONObjectWriter(&bytes)
                point.number("latitude", location.latitude, &bytes)
                point.number("longitude", location.longitude, &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            inner.integer("rating", metadata.rating, &bytes)
            inner.string("rights", metadata.rights, &bytes)
            if let taken = metadata.taken {
                inner.key("taken", &bytes)
                var time = JSONObjectWriter(&bytes)
                time.string("local", taken.local, &bytes)
                time.string("offset", taken.offset, &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            inner.string("title", metadata.title, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        if let placeholder {
            object.key("placeholder", &bytes)
            var inner = JSONObjectWriter(&bytes)
            inner.string("color", placeholder.color, &bytes)
            inner.string("data_uri", placeholder.dataURI, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        object.key("renditions", &bytes)
        bytes.append(UInt8(ascii: "["))
        for (offset, rendition) in renditions.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(&bytes)
            inner.integer("bytes", Int(rendition.byteCount), &bytes)
            inner.string("format", rendition.format.rawValue, &bytes)
            inner.integer("height", rendition.height, &bytes)
            inner.string("path", rendition.path, &bytes)
            inner.string("sha256", rendition.sha256, &bytes)
            inner.integer("width", rendition.width, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        object.string("sha256", sha256, &bytes)
        object.string("source", source, &bytes)
        if let hasTransparency {
            object.key("transparent", &bytes)
            bytes += (hasTransparency ? "true" : "false").utf8
        }
        if let validators {
            object.key("validators", &bytes)
            var inner = JSONObjectWriter(&bytes)
            inner.string("etag", validators.etag, &bytes)
            inner.string("last_modified", validators.lastModified, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        if let video {
            object.key("video", &bytes)
            var inner = JSONObjectWriter(&bytes)
            inner.key("audio", &bytes)
            bytes += (video.hasAudio ? "true" : "false").utf8
            inner.number("duration", video.duration, &bytes)
            inner.string("recipe", video.recipe, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        object.integer("width", width, &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

/// One JSON object's keys, written in the order given into the bytes of the document; nil
/// values are left out, as `encodeIfPresent` leaves them. The object is opened on creation and
/// closed by its writer with `}`.
struct JSONObjectWriter {
    private var first = true

    init(_ bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func key(_ name: String, _ bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        RecordLines.appendJSON(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: String, _ value: String?, _ bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, &bytes)
        RecordLines.appendJSON(value, to: &bytes)
    }

    /// A finite number as JSONEncoder spells it: shortest (`59.9`), a whole one without `.0`.
    mutating func number(_ name: String, _ value: Double, _ bytes: inout [UInt8]) {
        key(name, &bytes)
        if value == value.rounded(), abs(value) < 1e15 {
            bytes += "\(Int(value))".utf8
        } else {
            bytes += "\(value)".utf8
        }
    }

    mutating func integer(_ name: String, _ value: Int?, _ bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, &bytes)
        bytes += value.description.utf8
    }
}
