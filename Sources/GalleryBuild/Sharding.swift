import Foundation
import Loading

/// One shard of a build spread over `count` machines (`--shard K/N`, from 1): it loads and
/// encodes only its photos, shares them through the remote cache tier and writes no pages; an
/// ordinary build afterwards finds everything there.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// From 1 to `count`.
    package var index: Int
    package var count: Int

    package init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    package var description: String { "\(index)/\(count)" }

    /// `K/N`; `auto` takes K and N from GitLab's `CI_NODE_INDEX` and `CI_NODE_TOTAL`; `auto/N`
    /// takes K from `CI_NODE_INDEX` or, counting from 0, a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX`. Throws a message saying what is wrong.
    package static func parse(_ text: String, environment: [String: String]) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count) else {
            throw ShardError("--shard must be K/N (e.g. 2/4), auto or auto/N, got \"\(text)\"")
        }
        var count: Int?
        if parts.count == 2 {
            guard let total = Int(parts[1]), total >= 1 else {
                throw ShardError("--shard \(text): N must be a whole number from 1")
            }
            count = total
        }
        let index: Int
        if parts[0] == "auto" {
            if let node = environment["CI_NODE_INDEX"], !node.isEmpty {
                guard let value = Int(node) else { throw ShardError("CI_NODE_INDEX is not a number: \"\(node)\"") }
                index = value
                if count == nil {
                    guard let total = environment["CI_NODE_TOTAL"].flatMap({ Int($0) }) else {
                        throw ShardError("--shard auto: CI_NODE_INDEX is set but CI_NODE_TOTAL is not a number")
                    }
                    count = total
                }
            } else if let completion = environment["JOB_COMPLETION_INDEX"], !completion.isEmpty {
                guard let value = Int(completion) else {
                    throw ShardError("JOB_COMPLETION_INDEX is not a number: \"\(completion)\"")
                }
                guard count != nil else {
                    throw ShardError("--shard auto: a Kubernetes Indexed Job gives no total; write --shard auto/N")
                }
                index = value + 1
            } else {
                throw ShardError(
                    "--shard \(text): neither CI_NODE_INDEX (GitLab's parallel:) nor JOB_COMPLETION_INDEX "
                        + "(a Kubernetes Indexed Job) is set; write --shard K/N")
            }
        } else {
            guard let value = Int(parts[0]), let total = count else {
                throw ShardError("--shard must be K/N (e.g. 2/4), auto or auto/N, got \"\(text)\"")
            }
            index = value
            count = total
        }
        guard let total = count, let shard = Shard(index: index, count: total) else {
            throw ShardError("--shard \(text): the shard must be from 1 to \(count ?? 0), got \(index)")
        }
        return shard
    }

    /// The shard (from 1) of each name, for names that may repeat: the distinct names ordered by
    /// their SHA-256 and cut into `count` runs of equal length. Every machine computes the same
    /// split from the same feed whatever its order, the shards differ in size by at most one,
    /// and a feed that gains or loses a name between two shards' starts moves at most one name
    /// across each cut (dealing names out in turn would move half of them).
    package static func assignments(of names: [String], count: Int) -> [String: Int] {
        let distinct = Set(names).map { (sha256Hex(of: $0), $0) }.sorted { $0.0 < $1.0 }
        var shards: [String: Int] = [:]
        for (offset, (_, name)) in distinct.enumerated() { shards[name] = offset * count / distinct.count + 1 }
        return shards
    }
}

package struct ShardError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}
