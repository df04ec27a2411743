/// What the camera recorded about a photo, as shown on its page with `exif: true`: never where
/// it was taken (no GPS field is read at all).
package struct CameraDetails: Sendable, Hashable, Codable {
    /// `Canon EOS R5`: the model, led by the make unless the model already names it.
    package var camera: String?
    package var lens: String?
    /// `35 mm`.
    package var focalLength: String?
    /// `ƒ/2.8`.
    package var aperture: String?
    /// `1/250 s`.
    package var exposure: String?
    /// `ISO 400`.
    package var iso: String?
    /// `2024-05-01 14:32`, the camera's own clock (EXIF has no time zone).
    package var taken: String?

    package init(
        camera: String? = nil, lens: String? = nil, focalLength: String? = nil, aperture: String? = nil,
        exposure: String? = nil, iso: String? = nil, taken: String? = nil
    ) {
        self.camera = camera
        self.lens = lens
        self.focalLength = focalLength
        self.aperture = aperture
        self.exposure = exposure
        self.iso = iso
        self.taken = taken
    }

    /// Nothing recorded.
    package var isEmpty: Bool { parts.isEmpty }

    /// The values in reading order: camera, lens, focal length, aperture, exposure, ISO, date.
    package var parts: [String] {
        [camera, lens, focalLength, aperture, exposure, iso, taken].compactMap { $0 }
    }

    package enum CodingKeys: String, CodingKey {
        case camera, lens, iso, taken
        case focalLength = "focal_length"
        case aperture, exposure
    }
}
