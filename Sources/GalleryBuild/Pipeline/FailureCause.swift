import Foundation
import GalleryCore
import Imaging
import Loading
import Video

/// The few words a failure is grouped by, from the error that caused it.
enum FailureCause {
    static func of(_ error: any Error) -> String {
        switch error {
        case let error as LoadingError: of(error)
        case let error as ImagingError: of(error)
        case let error as VideoError: of(error)
        default: "failed"
        }
    }

    static func of(_ error: LoadingError) -> String {
        switch error.code {
        case .unreadableFile: "unreadable file"
        case .tooLarge: "over max_image_bytes"
        case .notAnImage: "not an image"
        case .httpStatus: error.status.map { "HTTP \($0)" } ?? "HTTP error"
        case .truncated: "truncated transfer"
        case .network: "cannot connect"
        case .redirectLoop, .tooManyRedirects: "redirects"
        case .offlineMiss: "not in the cache (--offline)"
        case .cache: "cache error"
        case .unsupportedScheme: "unsupported URL"
        case .timedOut: "timed out"
        case .tooSlow: "too slow"
        case .hostDown: "host not answering"
        }
    }

    static func of(_ error: ImagingError) -> String {
        switch error.code {
        case .initialisation: "libvips failed to start"
        case .unsupportedFormat: "not an image libvips reads"
        case .tooManyPixels: "over max_pixels"
        case .decode: "cannot decode"
        case .encode: "cannot encode"
        case .write: "cannot write thumbnails"
        }
    }

    /// A clip met on a machine without ffmpeg: left out of the gallery with a warning, not a
    /// failed tile.
    static let videoToolMissing = "ffmpeg not installed"

    static func of(_ error: VideoError) -> String {
        switch error.code {
        case .toolMissing: videoToolMissing
        case .unreadable: "not a video ffmpeg reads"
        case .overLimit: "over the video limits"
        case .transcode: "cannot transcode"
        case .stopped: "cancelled"
        case .write: "cannot write thumbnails"
        }
    }

    /// The host a failure is grouped under: the photo's, unless the photo is a local file or the
    /// cause lies on the building machine (its cache, its disk), which is not the host's doing.
    static func host(of source: URL, cause: String) -> String? {
        let isLocal =
            source.isFileURL || cause == "cache error" || cause == "cannot write thumbnails"
            || cause == "libvips failed to start"
        return isLocal ? nil : source.host?.lowercased()
    }

    /// The error's own words, without the URL or path its description starts with (the report
    /// names the photo beside it).
    static func message(of error: any Error) -> String {
        switch error {
        case let error as LoadingError: error.detail
        case let error as ImagingError: error.detail
        case let error as VideoError: error.message
        default: "\(error)"
        }
    }
}
