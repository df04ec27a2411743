import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Loading
import Reporting

/// Sharded builds (`--shard K/N`): each shard loads and encodes its share of the photos and
/// hands them to the remote cache tier; an ordinary build afterwards renders the site from it.
extension BuildSession {
    /// This shard's photos. Photos are split by their source's name (the canonical URL, or the
    /// file relative to the site), so every photo of one URL lands in one shard.
    func shardsItems(
        _ shard: Shard, of items: [BuildItem], report: inout BuildReport
    ) async throws(BuildError) -> [BuildItem] {
        guard remote != nil else {
            let reason =
                remoteWarning
                ?? "no remote cache is configured (remote_cache: in gallery.yml, or --remote-cache URL)"
            throw BuildError(
                .remoteCache,
                "--shard \(shard) hands its work to the final build through the remote cache, and \(reason)")
        }
        let names = items.map { item in
            item.source.flatMap { $0.isFile ? nil : $0.description } ?? displayName(of: item.photo.source)
        }
        let assigned = Shard.assignments(of: names, count: shard.count)
        report.shard = BuildReport.ShardCounts(index: shard.index, count: shard.count, feedPhotos: items.count)
        return items.indices.filter { assigned[names[$0]] == shard.index }.map { items[$0] }
    }

    /// Makes sure the remote tier holds the URL record and the thumbnail set of every photo of
    /// this shard: those this build downloaded or made are there already; those its local
    /// cache had are asked about, and written if missing. Throws when the tier could not take
    /// them all: the shard's work would be lost, and its job should say so. Live Photos'
    /// `motions` go with them.
    func shareMissing(_ items: [BuildItem], motions: [Original] = [], shard: Shard) async throws(BuildError) {
        let originals =
            items.compactMap { item -> Original? in
                guard case .done(let original, _, _, _, _) = item.outcome else { return nil }
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
