import Foundation
import GalleryCore
import Testing

@testable import GalleryJSON

@Suite struct ManifestTests {
    @Test func encodesSortedAndStable() async throws {
        let manifest = Manifest(
            photos: [
                ManifestPhoto(
                    id: "1", source: "https://x/a.jpg", sha256: "ab", validators: Validators(etag: "W/\"1\""),
                    renditions: [])
            ],
            files: ["a.html", "images/x.webp"]
        )
        let text = String(decoding: try await manifest.encoded(), as: UTF8.self)
        #expect(text.contains("\"etag\":\"W/\\\"1\\\"\""))
        // One photo per line, the keys in order, valid JSON.
        #expect(text.hasPrefix("{\"files\":[") && text.hasSuffix("\"version\":2}\n"))
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
        #expect(text.range(of: "\"files\"")!.lowerBound < text.range(of: "\"photos\"")!.lowerBound)
        #expect(try await Manifest.decode(try await manifest.encoded()) == manifest)
        #expect(try await manifest.encoded() == (try await manifest.encoded()))
    }

    @Test func fileNamesAreWrittenAsJSONEncoderWritesThem() async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var strings = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        strings += ["photos/a b.html", "é\u{301}", "日本", "\u{7F}\u{80}\u{2028}", "🏔️", "a\"b\\c/d", ""]
        for string in strings {
            var bytes: [UInt8] = []
            RecordLines.appendJSON(string, to: &bytes)
            #expect(bytes == Array(try encoder.encode(string)), "\(string.unicodeScalars.map(\.value))")
        }
        var lines = Array("[".utf8)
        RecordLines.appendLines(strings, to: &lines)
        let decoded = try JSONDecoder().decode([String].self, from: Data(lines))
        #expect(decoded == strings)
    }

    /// A record with every value set (checked: no optional left nil, at any depth), a failed
    /// one, and strings that need escaping.
    static func records() -> [ManifestPhoto] {
        var full = ManifestPhoto(
            id: "a/\"1\"", source: "https://cdn.example.com/a b/é.jpg?x=1&y=2",
            sha256: String(repeating: "ab", count: 32),
            validators: Validators(etag: "W/\"x\\y\"", lastModified: "Tue, 15 Nov 1994 12:45:26 GMT"),
            renditions: [
                Rendition(
                    format: .avif, width: 480, height: 320, path: "images/0123-480.avif", byteCount: 12_345,
                    sha256: String(repeating: "cd", count: 32)),
                Rendition(
                    format: .jpeg, width: 960, height: 640, path: "images/0123-960.jpg", byteCount: 99,
                    sha256: String(repeating: "ef", count: 32)),
            ],
            error: "tab\there\nnewline \u{1} control")
        full.width = 4000
        full.height = -1
        full.placeholder = Placeholder(color: "#a0b1c2", dataURI: "data:image/webp;base64,UklGR+/=")
        full.hasTransparency = false
        full.camera = CameraDetails(
            camera: "Canon EOS R5", lens: "RF 24-70mm", focalLength: "35 mm", aperture: "ƒ/2.8", exposure: "1/250 s",
            iso: "ISO 400", taken: "2024-05-01 14:32")
        full.metadata = PhotoMetadata(
            title: "Fjord \"at\" dawn", description: "Mist\nover </water>", alt: "A grey fjord",
            keywords: ["fjord", "日本"], taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"), rating: 4,
            creator: "Ada", rights: "© 2024 Ada", licence: "https://creativecommons.org/licenses/by/4.0/",
            location: GeoPoint(latitude: -33.9, longitude: 151.20931))
        full.mac = String(repeating: "ab", count: 32)
        full.video = VideoDetails(
            duration: 7.52, hasAudio: true, recipe: "720,1080|webm,mp4|sound|ffmpeg 5.1.9-0+deb12u1")
        var transparent = full
        transparent.video = VideoDetails(duration: 3, hasAudio: false, recipe: "720|mp4|silent|ffmpeg 7.1")
        transparent.metadata = PhotoMetadata(
            taken: CaptureTime(local: "2024-05-01T14:32:10"), location: GeoPoint(latitude: 0, longitude: -0.00001))
        transparent.hasTransparency = true
        transparent.validators = Validators(etag: nil, lastModified: "x")
        transparent.camera = CameraDetails(camera: "only")
        let failed = ManifestPhoto(
            id: "", source: "日本/🏔️", sha256: nil, validators: nil, renditions: [], error: "HTTP 404")
        return [full, transparent, failed]
    }

    /// The names of the optionals left nil in `value`, at any depth.
    static func nils(in value: Any, path: String = "") -> [String] {
        Mirror(reflecting: value).children.flatMap { child -> [String] in
            let name = path + "." + (child.label ?? "?")
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return [name] }
                return nils(in: wrapped, path: name)
            }
            return mirror.children.isEmpty ? [] : nils(in: child.value, path: name)
        }
    }

    @Test func recordsAreWrittenAsJSONEncoderWritesThem() async throws {
        let records = Self.records()
        #expect(Self.nils(in: records[0]).isEmpty, "the full record sets every value: \(Self.nils(in: records[0]))")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for record in records {
            var bytes: [UInt8] = []
            record.appendJSON(to: &bytes)
            let expected = try encoder.encode(record)
            #expect(
                bytes == Array(expected),
                "\(String(decoding: bytes, as: UTF8.self))\n!=\n\(String(decoding: expected, as: UTF8.self))")
        }
        let manifest = Manifest(photos: records, files: ["index.html", "photos/a b.html"])
        #expect(try Manifest.decode(await manifest.encoded()) == manifest)
    }
}
