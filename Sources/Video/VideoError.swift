package import GalleryCore

/// Why a clip could not be turned into a poster and web videos: a message that says what failed,
/// with ffmpeg's own last words where it gave some.
package typealias VideoError = StageError<VideoErrorCode>

package enum VideoErrorCode: String, Sendable {
    /// ffmpeg or ffprobe is not installed.
    case toolMissing
    /// ffprobe found no video stream, or could not read the file.
    case unreadable
    /// Longer, larger or bigger than `video:` allows.
    case overLimit
    /// ffmpeg failed, or ran past `video.time_limit`.
    case transcode
    /// The build was interrupted while ffmpeg ran.
    case stopped
    /// An output could not be written.
    case write
}
