import Foundation

/// What a build says to GitHub Actions (`GITHUB_ACTIONS=true`): its stages as collapsible
/// groups, its failures as annotations on the run, and a Markdown summary for the step.
///
/// Workflow commands are lines of the form `::command key=value::data`; data and values are
/// percent-escaped so that a photo's name cannot end the line or start a command of its own.
package enum GitHubActions {
    /// Annotations GitHub shows at most per step are few (10 warnings); more lines only fill the
    /// log. One per failure group, the largest first, and one line for the rest.
    package static let annotationLimit = 10

    package static func groupStart(_ title: String) -> String { "::group::\(escapeData(title))" }

    package static let groupEnd = "::endgroup::"

    /// One `::warning` per group of failures (stage, cause, host), with its count and examples.
    package static func annotations(for report: BuildReport, limit: Int = annotationLimit) -> [String] {
        let groups = report.failureGroups()
        var lines = groups.prefix(limit).map { group in
            let title = "gallerygen: \(group.outcome) (\(group.cause))"
            return "::warning title=\(escapeProperty(title))::\(escapeData(group.summary))"
        }
        if groups.count > limit {
            let rest = groups.dropFirst(limit).reduce(0) { $0 + $1.count }
            lines.append(
                "::warning title=gallerygen: more failures::\(rest) more photos in \(groups.count - limit) other groups (see the report)"
            )
        }
        return lines
    }

    /// The step summary: counts, failures by cause, time per stage.
    package static func stepSummary(for report: BuildReport) -> String {
        let counts = report.counts
        var text = "### gallerygen build\n\n"
        text += "| photos | failed | requests | 200 | 304 | fresh | encoded | files written | transferred |\n"
        text += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        text +=
            "| \(counts.photos) | \(counts.failed) | \(counts.requests) | \(counts.downloaded) | \(counts.notModified) "
            + "| \(counts.fresh) | \(counts.processed) | \(counts.filesWritten) "
            + "| \(BuildReport.formatBytes(counts.bytesTransferred)) |\n\n"
        let groups = report.failureGroups(examples: 1)
        if !groups.isEmpty {
            text += "| failures | stage | cause | host | e.g. |\n| ---: | --- | --- | --- | --- |\n"
            for group in groups.prefix(20) {
                let example = group.examples.first.map { markdownCell($0.line) } ?? ""
                text +=
                    "| \(group.count) | \(group.stage) | \(markdownCell(group.cause)) | \(markdownCell(group.host ?? "")) | \(example) |\n"
            }
            if groups.count > 20 {
                text += "\n… and \(groups.count - 20) more groups (the report lists every failure).\n"
            }
            text += "\n"
        }
        let stages = ["feed", "load", "images", "render", "write", "total"].compactMap { key in
            report.seconds[key].map { "\(key) \(String(format: "%.2f", $0)) s" }
        }
        text += "Time: " + stages.joined(separator: " · ") + "\n"
        return text
    }

    /// `%`, CR and LF escaped: the data of a workflow command ends at the line's end.
    package static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// The data escapes plus `:` and `,`, which end a property's value.
    package static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    private static func markdownCell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
