import Foundation
import GalleryCore

/// Something that gets the bytes of an image onto disk, verified: the Loading stage's contract.
///
/// Implementations coalesce: however many callers ask for one canonical URL, and whenever they ask
/// within one loader's life, the bytes are fetched at most once.
public protocol OriginalLoading: Sendable {
    /// The verified original for `source`. Cancelling the caller stops its wait; the transfer
    /// itself stops only when no caller is left.
    func original(for source: CanonicalURL) async throws -> Original
}
