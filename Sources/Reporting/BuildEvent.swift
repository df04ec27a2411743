/// Progress of a build, for a progress display.
package enum BuildEvent: Sendable {
    /// A stage began; `total` is how many items it will handle, when known.
    case started(BuildStage, total: Int?)
    /// Items of a stage done so far.
    case advanced(BuildStage, done: Int, total: Int)
    /// Seconds of clips' footage transcoded so far, of the footage of the clips met so far (it
    /// grows as clips are read).
    case footage(done: Double, total: Double)
    case finished(BuildStage, seconds: Double)
    /// Something the user should know that does not fail the build, when it happens.
    case warning(String)
    /// A photo became a placeholder tile (or a feed entry was skipped), when it happens.
    case failed(BuildReport.Failure)
}

/// The stages of a build, in order.
package enum BuildStage: String, Sendable, CaseIterable {
    case check, feed, load, images, render, write

    package var title: String {
        switch self {
        case .check: "Checking for changes"
        case .feed: "Reading feed"
        case .load: "Loading images"
        case .images: "Making thumbnails"
        case .render: "Rendering pages"
        case .write: "Writing site"
        }
    }
}
