import Foundation
import Reporting
import Testing

@testable import GalleryBuild

@Suite struct GitHubActionsTests {
    private func failure(_ index: Int, cause: String, host: String?) -> BuildReport.Failure {
        BuildReport.Failure(
            index: index, id: nil, url: nil, stage: "load", cause: cause, host: host,
            message: "photos/\(index).jpg: \(cause)")
    }

    @Test func aPhotoNameCannotEndTheCommandOrStartAnother() {
        let data = GitHubActions.escapeData("50% of it\n::error::gotcha\r")
        #expect(data == "50%25 of it%0A::error::gotcha%0D")
        #expect(!data.contains("\n"))
        #expect(GitHubActions.escapeProperty("a: b, c") == "a%3A b%2C c")
    }

    @Test func thousandsOfFailuresAreAFewAnnotationsLargestFirst() {
        var report = BuildReport()
        for index in 0..<5000 { report.failures.append(failure(index, cause: "timed out", host: "a.example")) }
        for host in 0..<30 {
            report.failures.append(failure(5000 + host, cause: "HTTP 404", host: "h\(host).example"))
        }

        let lines = GitHubActions.annotations(for: report)

        #expect(lines.count == GitHubActions.annotationLimit + 1, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("::warning title=") && !$0.contains("\n") })
        #expect(lines[0].hasPrefix("::warning title=gallerygen%3A 5000 photos failed (timed out)::5000 photos failed"))
        #expect(lines[0].contains("%0A    … and 4997 more"))
        #expect(lines.last?.contains("21 more photos in 21 other groups") == true, "\(lines.last ?? "")")
    }

    @Test func theSummaryCountsTimesAndGroupsFailures() {
        var report = BuildReport()
        report.counts.photos = 12
        report.counts.failed = 2
        report.counts.downloaded = 10
        report.seconds = ["feed": 0.05, "render": 0.25, "total": 1.5]
        report.failures = [
            failure(3, cause: "HTTP 404", host: "x.example"), failure(7, cause: "HTTP 404", host: "x.example"),
        ]

        let text = GitHubActions.stepSummary(for: report)

        #expect(text.contains("| 12 | 2 | 0 | 10 | 0 | 0 | 0 | 0 | 0 B |"), "\(text)")
        #expect(text.contains("| 2 | load | HTTP 404 | x.example | entry 3: photos/3.jpg: HTTP 404 |"), "\(text)")
        #expect(text.contains("feed 0.05 s · render 0.25 s · total 1.50 s"), "\(text)")
    }
}
