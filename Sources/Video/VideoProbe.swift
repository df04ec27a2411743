package import Foundation

/// What ffprobe says of a clip: the first video stream's size, turn and colour, whether there is
/// sound, how long it runs and when it was recorded. Read before anything is transcoded, so that
/// the limits are checked on what the file says, not on what ffmpeg finds after minutes of work.
package struct VideoProbe: Sendable, Hashable {
    /// The stored frame's size, before the turn.
    package var codedWidth: Int
    package var codedHeight: Int
    /// Degrees clockwise the player turns the frame (0, 90, 180 or 270).
    package var rotation: Int
    package var duration: Double
    package var hasAudio: Bool
    package var codec: String
    /// The transfer function (`arib-std-b67` is HLG, `smpte2084` is PQ), when the stream says.
    package var transfer: String?
    /// When the clip was recorded, as the file says: an iPhone's local time with its offset
    /// (`com.apple.quicktime.creationdate`, `2023-05-09T12:41:46+0100`), else the container's
    /// `creation_time` in UTC (`2024-05-01T10:20:30.000000Z`).
    package var creationTime: String?

    /// ``creationTime`` as a local time to the second and its offset (`+01:00`, `Z`).
    package var taken: (local: String, offset: String?)? {
        guard let text = creationTime, text.utf8.count >= 19 else { return nil }
        let local = String(text.prefix(19))
        var rest = text.dropFirst(19)
        if rest.first == "." { rest = rest.drop { $0 == "." || $0.isNumber } }
        switch rest.count {
        case 1 where rest == "Z": return (local, "Z")
        case 5: return (local, "\(rest.prefix(3)):\(rest.suffix(2))")  // +0100
        case 6: return (local, String(rest))  // +01:00
        default: return (local, nil)
        }
    }

    /// The ffmpeg demuxer the file's first bytes name (`mov`, `matroska`, `avi`), set by the
    /// transcoder's probe: every later run reads the clip with it.
    package var demuxer = "mov"

    /// The shape of a stored pixel (`sample_aspect_ratio`): 1 but for a clip stored squeezed
    /// (HDV's 1440x1080 shown at 1920x1080).
    package var sampleAspect = 1.0

    /// The stored frame's width as shown, its pixels made square.
    private var shownCodedWidth: Int {
        guard sampleAspect != 1 else { return codedWidth }
        return max(2, Int((Double(codedWidth) * sampleAspect / 2).rounded()) * 2)
    }

    /// The frame as it is shown: square pixels, and turned a quarter, its sides swap.
    package var width: Int { rotation % 180 == 0 ? shownCodedWidth : codedHeight }
    package var height: Int { rotation % 180 == 0 ? codedHeight : shownCodedWidth }

    /// HLG or PQ: the clip is tone-mapped to SDR for the web.
    package var isHDR: Bool { transfer == "arib-std-b67" || transfer == "smpte2084" }

    /// Reads ffprobe's JSON (`-print_format json -show_format -show_streams`); nil when it has no
    /// video stream of a known size.
    package init?(ffprobeJSON data: Data) {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data),
            let video = answer.streams.first(where: { $0.codecType == "video" && $0.disposition?.attachedPicture != 1 }
            ),
            let width = video.width, let height = video.height, width > 0, height > 0
        else { return nil }
        codedWidth = width
        codedHeight = height
        // The display matrix says how many degrees counter-clockwise (-90: turn a quarter
        // clockwise to show); an older file may carry only the `rotate` tag (clockwise).
        let turn =
            if let rotation = video.sideDataList?.compactMap(\.rotation).first {
                -Int(rotation.rounded())
            } else {
                Int(video.tags?["rotate"] ?? "") ?? 0
            }
        rotation = ((turn % 360) + 360) % 360 / 90 * 90
        duration =
            [answer.format?.duration, video.duration].compactMap { $0.flatMap(Double.init) }.first { $0.isFinite }
            ?? 0
        hasAudio = answer.streams.contains { $0.codecType == "audio" }
        codec = video.codecName ?? "unknown"
        // `4:3`; `0:1` or `N/A` when unknown, which is square.
        let ratio = (video.sampleAspectRatio ?? "").split(separator: ":").compactMap { Double($0) }
        if ratio.count == 2, ratio[0] > 0, ratio[1] > 0, (0.25...4).contains(ratio[0] / ratio[1]) {
            sampleAspect = ratio[0] / ratio[1]
        }
        transfer = video.colorTransfer
        let tags = answer.format?.tags ?? [:]
        creationTime = tags["com.apple.quicktime.creationdate"] ?? tags["creation_time"] ?? video.tags?["creation_time"]
    }

    /// The arguments that make ffprobe print what ``init(ffprobeJSON:)`` reads, of `input`
    /// (``VideoTranscoder/input(_:demuxer:)``).
    package static func arguments(for input: [String]) -> [String] {
        ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"] + input
    }

    // ffprobe's answer, as far as it is read.
    private struct Answer: Decodable {
        var streams: [Stream]
        var format: Format?
    }

    private struct Stream: Decodable {
        var codecType: String?
        var codecName: String?
        var width: Int?
        var height: Int?
        var duration: String?
        var colorTransfer: String?
        var sampleAspectRatio: String?
        var tags: [String: String]?
        var sideDataList: [SideData]?
        var disposition: Disposition?

        enum CodingKeys: String, CodingKey {
            case width, height, duration, tags, disposition
            case codecType = "codec_type"
            case codecName = "codec_name"
            case colorTransfer = "color_transfer"
            case sampleAspectRatio = "sample_aspect_ratio"
            case sideDataList = "side_data_list"
        }
    }

    private struct SideData: Decodable {
        var rotation: Double?
    }

    private struct Disposition: Decodable {
        var attachedPicture: Int?

        enum CodingKeys: String, CodingKey {
            case attachedPicture = "attached_pic"
        }
    }

    private struct Format: Decodable {
        var duration: String?
        var tags: [String: String]?
    }
}
