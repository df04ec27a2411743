import Foundation
import GalleryCore
import Hummingbird
import Logging
import NIOPosix

/// The output folder as Hummingbird's `FileMiddleware` reads it: its `LocalFileSystem`, with the
/// one rule it leaves to us: a path whose file (symlinks followed) lies outside the folder does
/// not exist. (`FileMiddleware` already refuses `..` and decodes percent escapes once.)
struct OutputFolderFiles: FileProvider {
    typealias FileAttributes = LocalFileSystem.FileAttributes
    typealias FileIdentifier = LocalFileSystem.FileIdentifier

    private let files: LocalFileSystem
    private let root: URL

    init(root: URL, logger: Logger) {
        files = LocalFileSystem(rootFolder: root.path, threadPool: .singleton, logger: logger)
        self.root = root
    }

    func getFileIdentifier(_ path: String) -> FileIdentifier? {
        guard !path.contains("\0"), !path.contains("\\"), let identifier = files.getFileIdentifier(path) else {
            return nil
        }
        guard URL(fileURLWithPath: identifier).isInside(root) else { return nil }
        return identifier
    }

    func getAttributes(id: FileIdentifier) async throws -> FileAttributes? {
        try await files.getAttributes(id: id)
    }

    func loadFile(id: FileIdentifier, context: some RequestContext) async throws -> ResponseBody {
        try await files.loadFile(id: id, context: context)
    }

    func loadFile(id: FileIdentifier, range: ClosedRange<Int>, context: some RequestContext) async throws
        -> ResponseBody
    {
        try await files.loadFile(id: id, range: range, context: context)
    }
}
