/// What `video:` in gallery.yml says: the web videos made of each clip, and the limits a clip is
/// checked against before anything is transcoded.
package struct VideoSettings: Sendable, Equatable {
    /// The heights of the H.264 MP4 made of each clip, of its shorter side for a portrait clip
    /// (`720` makes a 1280x720 landscape clip and a 720x1280 portrait one); none larger than the
    /// clip, and the clip's own when it is smaller than all of them.
    package var heights: [Int] = [720]
    /// A VP9 WebM beside each MP4, offered first: smaller, and slower to make.
    package var webm = false
    /// The sound kept (AAC, stereo at most); false makes silent videos.
    package var audio = true
    /// The longest clip transcoded, in seconds.
    package var maxDuration: Double = 900
    /// The largest frame (width times height) transcoded.
    package var maxPixels = 7680 * 4320
    /// The largest clip loaded, in bytes (photos have `max_image_bytes`).
    package var maxBytes: Int64 = 2_000_000_000
    /// A transcode still running after this many seconds is stopped and reported.
    package var timeLimit: Double = 1800

    package init() {}
}

/// What a clip's web videos are made with besides its bytes: the settings that change them and
/// ffmpeg's version. Its fingerprint names the files, so a name never changes meaning.
package struct VideoRecipe: Sendable, Hashable {
    package var heights: [Int]
    package var webm: Bool
    package var audio: Bool
    /// `ffmpeg -version`'s first line's version (`5.1.9-0+deb12u1`).
    package var ffmpegVersion: String

    package init(settings: VideoSettings, ffmpegVersion: String) {
        heights = Array(Set(settings.heights)).sorted()
        webm = settings.webm
        audio = settings.audio
        self.ffmpegVersion = ffmpegVersion
    }

    /// The formats made, most compact first (the order of a `<video>`'s sources).
    package var formats: [ImageFormat] { webm ? [.webm, .mp4] : [.mp4] }

    /// The text hashed with the clip's SHA-256 to name its videos of one format.
    package func fileKeyMaterial(originalSHA256: String, format: ImageFormat) -> String {
        "\(originalSHA256)|\(format.rawValue)|\(audio ? "sound" : "silent")|ffmpeg \(ffmpegVersion)"
    }

    /// The sizes of the videos made of a clip shown `width` x `height`: each of ``heights`` no
    /// larger than its shorter side (its own when all are larger), even, upright.
    package func outputSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
        let short = max(1, min(width, height))
        let long = max(width, height)
        var sides = heights.filter { $0 <= short }
        if sides.isEmpty { sides = [short] }
        return sides.map { size in
            let side = max(2, size / 2 * 2)
            let other = max(2, Int((Double(long) * Double(side) / Double(short) / 2).rounded()) * 2)
            return width >= height ? (other, side) : (side, other)
        }
    }

    /// The names of the videos of a clip shown `width` x `height` whose files' stems are `stems`
    /// (`<stem>-<shorter side>p.<ext>`).
    package func fileNames(stems: [ImageFormat: String], width: Int, height: Int) -> Set<String> {
        var names: Set<String> = []
        for format in formats {
            guard let stem = stems[format] else { continue }
            for size in outputSizes(width: width, height: height) {
                names.insert("\(stem)-\(min(size.width, size.height))p.\(format.fileExtension)")
            }
        }
        return names
    }

    /// What a set's record keeps of the recipe it was made with: a set made with another is made
    /// again.
    package var fingerprint: String {
        let heightList = heights.map(String.init).joined(separator: ",")
        return "\(heightList)|\(webm ? "webm," : "")mp4|\(audio ? "sound" : "silent")|ffmpeg \(ffmpegVersion)"
    }
}

/// What a clip's set says beyond its poster: how long it runs, whether it has sound, and the
/// recipe its web videos were made with (``VideoRecipe/fingerprint``).
package struct VideoDetails: Sendable, Hashable, Codable {
    package var duration: Double
    package var hasAudio: Bool
    package var recipe: String

    package init(duration: Double, hasAudio: Bool, recipe: String) {
        self.duration = duration
        self.hasAudio = hasAudio
        self.recipe = recipe
    }

    package enum CodingKeys: String, CodingKey {
        case duration, recipe
        case hasAudio = "audio"
    }
}
