import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Loading
import Reporting

/// Sharded builds (`--shard K/N`): each shard loads and encodes its share of the photos and
/// hands them to the remote cache tier; an ordinary build afterwards renders the site from it.
extension BuildSession {
    /// This shard's photos and their sources. Photos are split by their source's name (the
    /// canonical URL, or the file relative to the site), so every photo of one URL lands in one
    /// shard.
    func shardsPhotos(
        _ shard: Shard, of photos: [Photo], sources: [CanonicalURL?], report: inout BuildReport
    ) async throws(BuildError) -> ([Photo], [CanonicalURL?]) {
        guard remote != nil else {
            let reason =
                remoteWarning
                ?? "no remote cache is configured (remote_cache: in gallery.yml, or --remote-cache URL)"
            throw BuildError(
                .remoteCache,
                "--shard \(shard) hands its work to the final build through the remote cache, and \(reason)")
        }
        let names = zip(photos, sources).map { photo, source in
            source.flatMap { $0.isFile ? nil : $0.description } ?? displayName(of: photo.source)
        }
        let assigned = Shard.assignments(of: names, count: shard.count)
        let picked = photos.indices.filter { assigned[names[$0]] == shard.index }
        report.shard = BuildReport.ShardCounts(index: shard.index, count: shard.count, feedPhotos: photos.count)
        return (picked.map { photos[$0] }, picked.map { sources[$0] })
    }

    /// Makes sure the remote tier holds the URL record and the thumbnail set of every photo of
    /// this shard: those this build downloaded or made are there already; those its local
    /// cache had are asked about, and written if missing. Throws when the tier could not take
    /// them all: the shard's work would be lost, and its job should say so. Live Photos'
    /// `motions` go with them.
    func shareMissing(_ outcomes: [Int: PhotoOutcome], motions: [Original] = [], shard: Shard) async throws(BuildError)
    {
        let originals =
            outcomes.values.compactMap { outcome -> Original? in
                guard case .done(let original, _, _, _, _) = outcome else { return nil }
                return original
            } + motions
        let width = max(1, options.perHost ?? config.perHost)
        await withTaskGroup(of: Void.self) { [http, renditions] group in
            for (offset, original) in originals.enumerated() {
                if offset >= width { await group.next() }
                group.addTask {
                    await http.shareIfMissing(original.source)
                    await renditions.shareIfMissing(original)
                }
            }
        }
        guard let remote, !Task.isCancelled else { return }
        let unwritten = remote.statistics.writeFailures
        if !remote.isEnabled || unwritten > 0 {
            let what = unwritten > 0 ? "\(unwritten) objects were not written" : "it stopped answering"
            throw BuildError(
                .remoteCache,
                "shard \(shard) could not hand all its work to the remote cache \(remote.store.displayName) "
                    + "(\(what): \(remote.warnings.joined(separator: "; "))); the final build makes what is missing")
        }
    }
}
