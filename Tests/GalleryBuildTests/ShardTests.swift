import Foundation
import Testing

@testable import GalleryBuild

@Suite struct ShardTests {
    @Test func theSplitIsBalancedStableAndIndependentOfFeedOrder() {
        let names = (1...1003).map { "https://photos.example.org/\($0).jpg" }
        let split = Shard.assignments(of: names + names.prefix(10), count: 4)
        var sizes = [Int: Int]()
        for shard in split.values { sizes[shard, default: 0] += 1 }
        #expect(sizes == [1: 251, 2: 251, 3: 251, 4: 250])
        #expect(Shard.assignments(of: names.reversed(), count: 4) == split)
        // A feed that gains a photo between two shards' starts moves at most one name per cut.
        let grown = Shard.assignments(of: names + ["https://photos.example.org/new.jpg"], count: 4)
        #expect(names.filter { grown[$0] != split[$0] }.count <= 3)
        let lost = Shard.assignments(of: names.filter { $0 != names[500] }, count: 4)
        #expect(names.filter { $0 != names[500] && lost[$0] != split[$0] }.count <= 3)
    }

    @Test(
        arguments: [
            ("2/4", [:], "2/4"),
            ("auto", ["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "5"], "3/5"),
            ("auto/8", ["JOB_COMPLETION_INDEX": "0"], "1/8"),
            ("auto/8", ["JOB_COMPLETION_INDEX": "7"], "8/8"),
        ] as [(String, [String: String], String)])
    func parses(text: String, environment: [String: String], expected: String) throws {
        #expect(try Shard.parse(text, environment: environment).description == expected)
    }

    @Test(
        arguments: [
            ("0/4", [:], "the shard must be from 1 to 4, got 0"),
            ("5/4", [:], "from 1 to 4, got 5"),
            ("2", [:], "--shard must be K/N"),
            ("2/x", [:], "N must be a whole number"),
            ("auto", [:], "neither CI_NODE_INDEX"),
            ("auto", ["JOB_COMPLETION_INDEX": "1"], "write --shard auto/N"),
            ("auto/4", ["JOB_COMPLETION_INDEX": "4"], "from 1 to 4, got 5"),
        ] as [(String, [String: String], String)])
    func refuses(text: String, environment: [String: String], message: String) {
        let error = #expect(throws: ShardError.self) { try Shard.parse(text, environment: environment) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }
}
