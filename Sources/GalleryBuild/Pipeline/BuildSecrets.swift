import Foundation
import GalleryCore
import Loading
import Reporting

/// The secrets a build is given, read from the environment as the build uses them, and taken out
/// of everything it writes and says (``Redaction``): a server that repeats one in a title, a
/// caption, a listing's address or an error message publishes it nowhere.
enum BuildSecrets {
    /// What the build takes out of what it writes and says. A secret's variable that is set but
    /// blank (only white space: what an unset secret of a CI job becomes) stops the build: it is
    /// a mistake, not "no secret".
    static func redaction(config: SiteConfig, options: BuildOptions) throws(BuildError) -> Redaction {
        let environment = options.environment
        var variables: [(name: String, what: String)] = []
        if let auth = config.feed.credentials { variables.append((auth.variable, "the feed's secret, `feed.auth`")) }
        variables.append((SigningKey.variable, "the site's key"))
        let remote = BuildSession.remoteLocation(options: options, config: config) ?? ""
        if config.feed.url.lowercased().hasPrefix("s3://") || remote.lowercased().hasPrefix("s3://") {
            variables += [
                ("AWS_ACCESS_KEY_ID", "the bucket's key id"), ("AWS_SECRET_ACCESS_KEY", "the bucket's secret key"),
                ("AWS_SESSION_TOKEN", "the bucket's session token"),
            ]
        }
        var secrets: [String] = []
        var extraForms: [String] = []
        for (name, what) in variables {
            guard let value = environment[name] else { continue }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else {
                throw BuildError(
                    .configuration,
                    "the environment variable \(name) (\(what)) is set but \(value.isEmpty ? "empty" : "only white space"), "
                        + "as a CI job sets a secret it does not have; set it to the secret, or leave it unset")
            }
            // The key id names the keys; it is no secret.
            guard name != "AWS_ACCESS_KEY_ID" else { continue }
            secrets += [value, trimmed]
            if let auth = config.feed.credentials, auth.variable == name, case .basic(let user) = auth.kind {
                extraForms.append(Data("\(user):\(value)".utf8).base64EncodedString())
            }
        }
        return Redaction(secrets: secrets, extraForms: extraForms)
    }
}

extension Redaction {
    /// What the build says: every secret taken out, and no NUL byte (a broken block's text
    /// quoted in a warning).
    func said(_ text: String) -> String {
        let text = apply(text)
        return text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "") : text
    }

    func said(_ text: String?) -> String? { text.map { said($0) } }
}

extension BuildEvent {
    /// The event with every secret taken out of what it says.
    func redacted(_ redaction: Redaction) -> BuildEvent {
        switch self {
        case .warning(let message): .warning(redaction.said(message))
        case .failed(let failure): .failed(failure.redacted(redaction))
        default: self
        }
    }
}

extension BuildReport.Failure {
    func redacted(_ redaction: Redaction) -> BuildReport.Failure {
        var failure = self
        failure.message = redaction.said(message)
        failure.url = redaction.said(url)
        failure.id = redaction.said(id)
        failure.host = redaction.said(host)
        return failure
    }
}

extension BuildReport {
    /// The report with every secret (and NUL) taken out of what it says.
    func redacted(_ redaction: Redaction) -> BuildReport {
        var report = self
        report.warnings = warnings.map { redaction.said($0) }
        report.failures = failures.map { $0.redacted(redaction) }
        report.error = redaction.said(error)
        report.output = redaction.said(output)
        return report
    }
}

extension BuildError {
    /// The error as it will be said, with every secret taken out (its code kept).
    func redacted(_ redaction: Redaction) -> BuildError {
        let description = self.description
        guard redaction.holds(description) || description.utf8.contains(0) else { return self }
        return BuildError(code, redaction.said(description))
    }
}

extension FeedDocument {
    /// Every secret taken out of what the feed says. A photo whose image address holds one is left
    /// out, as a skipped entry: its address is what the build keeps (in the cache, the manifest and
    /// the report), and the secret is added to a request only as it leaves.
    mutating func redact(_ redaction: Redaction) {
        guard !redaction.isEmpty else { return }
        title = redaction.apply(title)
        warnings = warnings.map { redaction.apply($0) }
        skipped = skipped.map { FeedIssue(index: $0.index, message: redaction.apply($0.message)) }
        var kept: [Photo] = []
        kept.reserveCapacity(photos.count)
        for var photo in photos {
            if redaction.holds(photo.source.absoluteString)
                || photo.motion.map({ redaction.holds($0.absoluteString) }) == true
            {
                skipped.append(
                    FeedIssue(
                        index: photo.index,
                        message: "its image address holds the feed's secret, which gallerygen never keeps or "
                            + "publishes; not read"))
                continue
            }
            photo.title = redaction.apply(photo.title)
            photo.id = redaction.apply(photo.id)
            photo.albumPath = photo.albumPath.map { redaction.apply($0) }
            if let link = photo.link, redaction.holds(link.absoluteString) { photo.link = nil }
            photo.captionMarkdown = redaction.apply(photo.captionMarkdown)
            var metadata = photo.metadata
            metadata.title = redaction.apply(metadata.title)
            metadata.description = redaction.apply(metadata.description)
            metadata.alt = redaction.apply(metadata.alt)
            metadata.keywords = metadata.keywords.map { redaction.apply($0) }
            metadata.creator = redaction.apply(metadata.creator)
            metadata.rights = redaction.apply(metadata.rights)
            if let licence = metadata.licence, redaction.holds(licence) { metadata.licence = nil }
            if metadata != photo.metadata { photo.metadata = metadata }
            kept.append(photo)
        }
        photos = kept
        var notes: [[String]: AlbumNote] = [:]
        for (path, note) in albums {
            var note = note
            note.title = redaction.apply(note.title)
            note.descriptionMarkdown = redaction.apply(note.descriptionMarkdown)
            note.cover = redaction.apply(note.cover)
            notes[path.map { redaction.apply($0) }] = note
        }
        albums = notes
    }
}
