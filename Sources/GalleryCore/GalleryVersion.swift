/// gallerygen's version: `gallerygen --version`, the release the CI files name, the User-Agent of
/// its own requests, and the name of the release tarball (the Makefile reads it from this file).
package enum GalleryVersion {
    package static let current = "0.1.0"
}
