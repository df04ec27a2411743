import Foundation
import GalleryCore
import TestSupport
import Testing

/// Where a photo was taken stays out of everything a site publishes while `location:` says so:
/// photos hiding a place in every layout cameras and editors write (made with exiftool, laid out
/// byte by byte, and real files from other projects' test suites), built with
/// `downloads: original`, and every image the site publishes read back with exiftool
/// (`-a -G1 -ee`) and searched byte by byte for the coordinates.
@Suite(.serialized) struct PublishedPlaceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real-metadata")

    // Oslo: 59° 54' 49.9" N, 10° 45' 8.08" E.
    static let gpsArguments = [
        "-GPSLatitude=59.913868", "-GPSLatitudeRef=N", "-GPSLongitude=10.752245", "-GPSLongitudeRef=E",
        "-GPSAltitude=23", "-GPSDateStamp=2024:05:01",
    ]

    /// A TIFF block (big-endian) whose GPS IFD (Oslo, as three rationals each way) is reached from
    /// `placement`: IFD0, the EXIF IFD, a SubIFD of IFD0, IFD1 (the thumbnail's), or IFD2.
    static func tiff(gpsFrom placement: String) -> [UInt8] {
        enum Value {
            case inline([UInt8])
            case data([UInt8])
            case ifd(Int)
        }
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        func rationals(_ values: [(Int, Int)]) -> [UInt8] { values.flatMap { u32($0.0) + u32($0.1) } }
        // IFDs by number: 0 IFD0, 1 EXIF, 2 GPS, 3 SubIFD, 4 IFD1, 5 IFD2.
        var ifds: [[(tag: Int, type: Int, count: Int, value: Value)]] = Array(repeating: [], count: 6)
        var next: [Int: Int] = [:]
        ifds[0] = [(0x010F, 2, 6, .data(Array("Maker\0".utf8))), (0x8769, 4, 1, .ifd(1))]
        ifds[1] = [(0x829A, 5, 1, .data(rationals([(1, 250)])))]
        ifds[2] = [
            (0x0001, 2, 2, .inline(Array("N\0\0\0".utf8))),
            (0x0002, 5, 3, .data(rationals([(59, 1), (54, 1), (4990, 100)]))),
            (0x0003, 2, 2, .inline(Array("E\0\0\0".utf8))),
            (0x0004, 5, 3, .data(rationals([(10, 1), (45, 1), (808, 100)]))),
        ]
        ifds[3] = [(0x0100, 4, 1, .inline(u32(16)))]
        ifds[4] = [(0x0100, 4, 1, .inline(u32(16)))]
        ifds[5] = [(0x0100, 4, 1, .inline(u32(16)))]
        next[0] = 4
        next[4] = 5
        let pointer: (Int, Int, Int, Value) = (0x8825, 4, 1, .ifd(2))
        switch placement {
        case "EXIF": ifds[1].append(pointer)
        case "SubIFD":
            ifds[0].append((0x014A, 4, 1, .ifd(3)))
            ifds[3].append(pointer)
        case "IFD1": ifds[4].append(pointer)
        case "IFD2": ifds[5].append(pointer)
        default: ifds[0].append(pointer)
        }
        for index in ifds.indices { ifds[index].sort { $0.tag < $1.tag } }
        func dataSize(_ ifd: [(tag: Int, type: Int, count: Int, value: Value)]) -> Int {
            ifd.reduce(0) { sum, entry in
                if case .data(let bytes) = entry.value { return sum + bytes.count + bytes.count % 2 }
                return sum
            }
        }
        var offsets: [Int] = []
        var cursor = 8
        for ifd in ifds {
            offsets.append(cursor)
            cursor += 2 + ifd.count * 12 + 4 + dataSize(ifd)
        }
        var bytes: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        for (number, ifd) in ifds.enumerated() {
            var dataAt = offsets[number] + 2 + ifd.count * 12 + 4
            var data: [UInt8] = []
            bytes += u16(ifd.count)
            for entry in ifd {
                bytes += u16(entry.tag) + u16(entry.type) + u32(entry.count)
                switch entry.value {
                case .inline(let value): bytes += value
                case .ifd(let target): bytes += u32(offsets[target])
                case .data(let value):
                    bytes += u32(dataAt)
                    data += value + (value.count % 2 == 1 ? [0] : [])
                    dataAt = offsets[number] + 2 + ifd.count * 12 + 4 + data.count
                }
            }
            bytes += u32(next[number].map { offsets[$0] } ?? 0)
            bytes += data
        }
        return bytes
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `file` with `segments` put right after its start of image.
    static func inserting(_ segments: [UInt8], into file: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: file))
        try Data(Array(bytes[0..<2]) + segments + Array(bytes[2...])).write(to: file)
    }

    static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let placeXMP = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/" drone-dji:GpsLatitude="+59.913868"
         drone-dji:GpsLongitude="+10.752245"><dc:creator><rdf:Seq><rdf:li>Ada Lovelace</rdf:li></rdf:Seq></dc:creator>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """

    /// The photos, one a layout, in photos/ of `site`; the names of those whose metadata cannot
    /// be read whole (a rendition is offered for them). Made on a thread of its own: some thirty
    /// runs of exiftool and vips would hold one of the test process's cooperative threads for
    /// seconds, and starve the other tests' tasks.
    static func writeCorpus(_ site: FixtureSite) async throws -> Set<String> {
        try await offTheCooperativeThreads { try makeCorpus(site) }
    }

    /// exiftool writing `arguments` into `file`, or an error saying what it said: for work on a
    /// thread of its own, where no expectation is recorded.
    static func write(_ arguments: [String], _ file: URL) throws {
        let run = try WhatPhotosSayTests.writing(arguments, into: file)
        guard run.status == 0 else { throw TestImageError(message: "exiftool \(arguments): \(run.standardError)") }
    }

    private static func makeCorpus(_ site: FixtureSite) throws -> Set<String> {
        let folder = site.folder.file("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var shade = 0
        func photo(_ name: String) throws -> URL {
            shade += 9
            return try WhatPhotosSayTests.photo(site, name, shade: shade)
        }
        func exiftool(_ name: String, _ arguments: [String]) throws {
            try write(arguments + ["-XMP-dc:Creator=Ada Lovelace"], try photo(name))
        }
        try exiftool("exif-gps-big-endian.jpg", gpsArguments + ["-ExifByteOrder=MM"])
        try exiftool("exif-gps-little-endian.jpg", gpsArguments + ["-ExifByteOrder=II"])
        try exiftool(
            "xmp-gps.jpg",
            ["-XMP-exif:GPSLatitude=59.913868 N", "-XMP-exif:GPSLongitude=10.752245 E", "-XMP-exif:GPSAltitude=23"])
        try exiftool(
            "iptc-and-xmp-places.jpg",
            [
                "-IPTC:City=Oslo", "-IPTC:Sub-location=Aker Brygge", "-IPTC:Province-State=Oslo",
                "-IPTC:Country-PrimaryLocationName=Norway", "-XMP-photoshop:City=Oslo",
                "-XMP-iptcCore:Location=Aker Brygge", "-XMP-iptcExt:LocationShownCity=Oslo",
            ])
        try exiftool("comment.jpg", ["-Comment=taken at 59.913868 N 10.752245 E", "-GPSLatitude=59.913868"])
        // A long caption puts the place in extended XMP.
        try exiftool(
            "extended-xmp.jpg",
            [
                "-XMP-dc:Description=" + String(repeating: "A quiet harbour at dawn. ", count: 3_000),
                "-XMP-exif:GPSLatitude=59.913868 N", "-XMP-exif:GPSLongitude=10.752245 E",
            ])
        // The EXIF thumbnail, itself a JPEG with a place in its own EXIF.
        let thumbnail = try photo("thumbnail-source.jpg")
        try write(gpsArguments, thumbnail)
        let withThumbnail = try photo("exif-thumbnail-with-its-own-exif.jpg")
        try write(["-Make=Maker", "-ThumbnailImage<=\(thumbnail.path)"], withThumbnail)
        try FileManager.default.removeItem(at: thumbnail)
        // The GPS IFD reached from each IFD that can point to it.
        for placement in ["IFD0", "EXIF", "SubIFD", "IFD1", "IFD2"] {
            try inserting(
                segment(0xE1, Array("Exif\0\0".utf8) + tiff(gpsFrom: placement)),
                into: try photo("gps-from-\(placement.lowercased()).jpg"))
        }
        // Photoshop's copy of the EXIF (resource 0x0422), beside a clean EXIF block.
        let exifBlock = tiff(gpsFrom: "IFD0")
        let resource =
            Array("Photoshop 3.0\08BIM\u{4}\u{22}\0\0".utf8)
            + [0, 0, UInt8(exifBlock.count >> 8), UInt8(exifBlock.count & 0xFF)] + exifBlock
        try inserting(segment(0xED, resource), into: try photo("photoshop-exif-resource.jpg"))
        // EXIF under a label readers other than libvips take: `exif`, `EXIF`.
        for label in ["exif", "EXIF"] {
            try inserting(
                segment(0xE1, Array("\(label)\0\0".utf8) + tiff(gpsFrom: "IFD0")), into: try photo("label-\(label).jpg")
            )
        }
        // A drone's own XMP namespace.
        try inserting(segment(0xE1, xmpHeader + Array(placeXMP.utf8)), into: try photo("drone-xmp.jpg"))
        // A second image after the end of the first, with a place of its own (MPF, motion photos).
        let trailing = try photo("trailing-image.jpg")
        let second = try photo("second.jpg")
        try write(gpsArguments, second)
        try (Data(contentsOf: trailing) + Data(contentsOf: second)).write(to: trailing)
        try FileManager.default.removeItem(at: second)
        // A progressive JPEG, and one with an ICC profile, each with a place.
        let vips = URL(fileURLWithPath: "/usr/bin/vips")
        let base = try photo("base.jpg")
        for (name, options) in [("progressive.jpg", "[interlace]"), ("icc-profile.jpg", "[profile=srgb]")] {
            let made = try CommandRun.run(
                vips, ["copy", base.path, folder.appendingPathComponent(name).path + options])
            guard made.status == 0 else { throw TestImageError(message: "vips copy: \(made.standardError)") }
            try write(gpsArguments, folder.appendingPathComponent(name))
        }
        try FileManager.default.removeItem(at: base)
        // XMP in UTF-16 (big-endian with its mark, little-endian without), with a place.
        let utf16 = Array(placeXMP.utf16)
        try inserting(
            segment(0xE1, xmpHeader + [0xFE, 0xFF] + utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
            into: try photo("xmp-utf16-big-endian.jpg"))
        try inserting(
            segment(0xE1, xmpHeader + utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            into: try photo("xmp-utf16-little-endian.jpg"))
        // EXIF whose first IFD lies past its block, beside a place: it cannot be read whole.
        var broken = tiff(gpsFrom: "IFD0")
        broken[4] = 0x7F
        try inserting(segment(0xE1, Array("Exif\0\0".utf8) + broken), into: try photo("exif-unreadable.jpg"))
        // Real files: IPTC's reference image (GPS and every location field of IIM and XMP), an
        // Olympus whose IFD1 points to a GPS IFD of its own, exiftool's UTF-16 XMP.
        for name in ["IPTC-PhotometadataRef-Std2021.1.jpg", "olympus-mju-800.jpg", "exiftool-XMP.jpg"] {
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return ["exif-unreadable.jpg"]
    }

    /// What exiftool (every tag, of every embedded block) and a search of the bytes find of a
    /// place in `files`: one line for each find.
    static func placesFound(in files: [URL]) async throws -> [String] {
        let tool = try #require(WhatPhotosSayTests.exiftool, "exiftool is installed by `make test-deps`")
        let run = try await CommandRun.running(tool, ["-j", "-a", "-G1", "-ee", "-n", "-q"] + files.map(\.path))
        let read = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]],
            "\(run.standardError)")
        #expect(read.count == files.count)
        var found: [String] = []
        let placeTags = ["GPS", "Gps", "City", "Country", "Location", "Sublocation", "Sub-location", "Province"]
        for tags in read {
            let file = (tags["SourceFile"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? "?"
            for (key, value) in tags where key != "SourceFile" {
                let tag = key.split(separator: ":").last.map(String.init) ?? key
                let text = "\(value)"
                if placeTags.contains(where: { tag.contains($0) })
                    || ["59.91", "10.75", "Oslo", "Aker"].contains(where: { text.contains($0) })
                {
                    found.append("\(file): exiftool \(key) = \(text.prefix(80))")
                }
            }
        }
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let text = String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
            for word in ["59.91", "59,54", "10.75", "10,45", "Oslo", "Aker Brygge"] where text.contains(word) {
                found.append("\(file.lastPathComponent): the bytes \"\(word)\"")
            }
            // 59/1 then 54/1, as EXIF's rationals in either byte order.
            for order in [
                [0, 0, 0, 59, 0, 0, 0, 1, 0, 0, 0, 54, 0, 0, 0, 1], [59, 0, 0, 0, 1, 0, 0, 0, 54, 0, 0, 0, 1, 0, 0, 0],
            ]
                as [[UInt8]]
            where bytes.firstRange(of: order) != nil {
                found.append("\(file.lastPathComponent): the latitude as rationals")
            }
        }
        return found
    }

    @Test(arguments: ["city", "off"])
    func noPublishedImageSaysWhereAPhotoWasTaken(location: String) async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Places\nfeed: photos\nimages:\n  widths: [64, 128]\n  formats: [webp, jpeg]\n"
                + "downloads: original\nlocation: \(location)\n",
            to: "gallery.yml")
        let refused = try await Self.writeCorpus(site)
        let sources = site.folder.allFiles(under: "photos").map { site.folder.file("photos/\($0)") }
        #expect(sources.count >= 22, "\(sources.count) layouts")
        // Every layout but the clean-by-construction ones had a place for the check to find.
        let before = try await Self.placesFound(in: sources)
        for source in sources where source.lastPathComponent != "exiftool-XMP.jpg" {
            // (exiftool's own UTF-16 test image says nothing of a place.)
            #expect(before.contains { $0.hasPrefix(source.lastPathComponent + ":") }, "\(source.lastPathComponent)")
        }

        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")

        let published = site.folder.allFiles(under: "public").filter {
            $0.hasPrefix("originals/") || $0.hasPrefix("images/")
        }.map { site.folder.file("public/\($0)") }
        let originals = published.filter { $0.path.contains("/originals/") }
        #expect(originals.count == sources.count - refused.count, "each original but the refused is published")
        let found = try await Self.placesFound(in: published)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        // Still the photo: libvips decodes each original, at the source's size.
        let vips = URL(fileURLWithPath: "/usr/bin/vipsheader")
        for original in originals {
            let header = try await CommandRun.running(vips, [original.path])
            #expect(header.status == 0 && header.standardOutput.contains("jpegload"), "\(original.lastPathComponent)")
        }
        // What is on the list stays: the creator, in the XMP written anew (read from UTF-16 too).
        let tool = try #require(WhatPhotosSayTests.exiftool)
        let said = try await CommandRun.running(tool, ["-a", "-G1", "-s", "-XMP-dc:Creator"] + originals.map(\.path))
        #expect(said.standardOutput.components(separatedBy: "Ada Lovelace").count - 1 >= 9, "\(said.standardOutput)")
        #expect(said.standardOutput.contains("Creator1 (ref2021.1)"), "the IPTC reference image's creator")
        // The refused offer their largest rendition, and the build says why.
        for name in refused {
            let page = try WhatPhotosSayTests.page(site, containing: #"download="\#(name.dropLast(4))."#)
            #expect(page.contains(#"href="../images/"#), "\(name): a rendition")
        }
        #expect(run.standardError.contains("its metadata cannot be read whole"), "\(run.standardError)")
    }

    /// A published original is taken as it is only when its bytes are what this build would
    /// publish: one swapped for the uncleaned file at the same name and size is made again.
    @Test func aPublishedOriginalIsCheckedByItsBytes() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Swap\nfeed: photos\nimages:\n  widths: [64]\ndownloads: original\n", to: "gallery.yml")
        let photo = try WhatPhotosSayTests.photo(site, "a.jpg", shade: 80)
        try await WhatPhotosSayTests.exiftool(Self.gpsArguments, photo)
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)
        let original = try #require(site.folder.allFiles(under: "public/originals").first)
        let published = site.folder.file("public/originals/\(original)")
        let clean = try Data(contentsOf: published)
        // Same length, the place back in: the source's bytes, cut or padded to the length.
        var swapped = try Data(contentsOf: photo)
        swapped =
            swapped.count >= clean.count
            ? swapped.prefix(clean.count) : swapped + Data(repeating: 0, count: clean.count - swapped.count)
        try swapped.write(to: published)
        #expect(try await Self.placesFound(in: [published]) != [], "the swapped file has a place")

        let again = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try Data(contentsOf: published) == clean)
        #expect(try await Self.placesFound(in: [published]) == [])
    }
}
