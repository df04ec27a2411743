package import Foundation

/// The theme shipped with gallerygen (`Sources/Rendering/Theme/`, SwiftPM's resource bundle of the
/// Rendering module), found beside the executable: its templates and assets, and its languages'
/// strings (`languages/<tag>.json`), which the configuration reads before anything renders.
package enum BuiltInTheme {
    /// Looked up by hand: `Bundle.module` stops the process when the bundle has been moved away.
    package static let folder: URL? = {
        let bundleName = "gallerygen_Rendering.resources"
        let executableFolder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [executableFolder, Bundle.main.resourceURL, Bundle.main.bundleURL].compactMap { $0 }
        for folder in candidates {
            for bundle in [bundleName, "gallerygen_Rendering.bundle/Contents/Resources", "gallerygen_Rendering.bundle"]
            {
                let theme = folder.appendingPathComponent(bundle).appendingPathComponent("Theme")
                if FileManager.default.fileExists(atPath: theme.appendingPathComponent("page.mustache").path) {
                    return theme
                }
            }
        }
        return nil
    }()
}
