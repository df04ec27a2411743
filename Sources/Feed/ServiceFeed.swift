import Foundation
import GalleryCore
import GalleryJSON

/// The answers of photo services' own APIs, read as list-shape entries (`imageUrl`, `title`,
/// `alt`, `description`, `date`, `taken`, `keywords`, `creator`, `link`, `id`) and resolved as
/// every other feed's are. docs/feeds.md says what each field fills.
enum ServiceFeed: Equatable {
    /// Mastodon's `GET /api/v1/accounts/:id/statuses` (Pixelfed answers the same API): one
    /// photo per image attachment, its alt text the author's own; pages by the `Link` header.
    case mastodon
    /// Piwigo's `pwg.categories.getImages` (`format=json`): one photo per image, the original
    /// file; pages by its `paging` (page numbers from 0).
    case piwigo

    var name: String {
        switch self {
        case .mastodon: "Mastodon or Pixelfed statuses"
        case .piwigo: "Piwigo (pwg.categories.getImages)"
        }
    }

    /// The service whose answer `root` is, by its tell-tale fields.
    static func detect(_ root: JSONValue) -> ServiceFeed? {
        if let items = root.arrayValue, let first = items.first(where: \.isObject),
            first["media_attachments"]?.arrayValue != nil, first["account"] != nil
        {
            return .mastodon
        }
        if root["stat"] != nil, root.value(atPath: "result.images")?.arrayValue != nil { return .piwigo }
        // Piwigo's refusal (`{"stat": "fail", "err": 1002, "message": …}`): named as Piwigo's.
        if root["stat"]?.text == "fail", root["err"] != nil { return .piwigo }
        return nil
    }

    /// The answer's photos as list-shape entries, and the posts left out by `visibility` and
    /// `sensitive`, by why.
    func entries(
        of root: JSONValue, name: String, visibility: PostVisibility = .public, sensitive: SensitivePosts = .leaveOut
    ) throws(FeedError) -> ([JSONValue], leftOut: [String: Int]) {
        switch self {
        case .mastodon:
            guard let statuses = root.arrayValue else {
                throw FeedError(.wrongShape, "\(name): a Mastodon answer is a list of statuses; this is not a list")
            }
            var leftOut: [String: Int] = [:]
            var entries: [JSONValue] = []
            for status in statuses {
                let entriesOfStatus = Self.mastodonEntries(status)
                guard !entriesOfStatus.isEmpty else { continue }
                switch Self.reasonToLeaveOut(status, visibility: visibility) {
                case nil: entries += entriesOfStatus
                case "sensitive" where sensitive == .behindWarning:
                    let warning = JSONValue.string(status["spoiler_text"]?.text ?? "")
                    entries += entriesOfStatus.map { entry in
                        guard case .object(var fields) = entry else { return entry }
                        fields["contentWarning"] = warning
                        return .object(fields)
                    }
                case let reason?: leftOut[reason, default: 0] += 1
                }
            }
            return (entries, leftOut)
        case .piwigo:
            if let stat = root["stat"]?.text, stat != "ok" {
                let message = root["message"]?.text ?? root["err"]?.text ?? stat
                throw FeedError(.wrongShape, "\(name): Piwigo answered \"\(message.prefix(200))\"")
            }
            guard let images = root.value(atPath: "result.images")?.arrayValue else {
                throw FeedError(.wrongShape, "\(name): a Piwigo answer has its images at result.images; this has none")
            }
            return (images.map(Self.piwigoEntry), [:])
        }
    }

    /// The next page, where the answer's body says it (Piwigo's `paging`); Mastodon's is in the
    /// `Link` header, which the pager reads.
    func next(in root: JSONValue, location: URL) -> URL? {
        guard self == .piwigo, let paging = root.value(atPath: "result.paging") else { return nil }
        func number(_ key: String) -> Int? { paging[key]?.text.flatMap { Int($0) } }
        guard let page = number("page"), let perPage = number("per_page"), perPage > 0, let count = number("count"),
            count >= perPage
        else { return nil }
        // Numbers from the server: an overflow ends the paging rather than the process.
        let (following, overflow) = page.addingReportingOverflow(1)
        let (reached, tooMany) = following.multipliedReportingOverflow(by: perPage)
        guard !overflow, !tooMany else { return nil }
        if let total = number("total_count"), reached >= total { return nil }
        return FeedPages.url(location, setting: "page", to: String(following))
    }

    // MARK: Mastodon

    /// Why a post is not published, or nil. Its `visibility` must be one the owner chose (a post
    /// without one, or of a kind a server adds, such as `limited` or `local`, is not published);
    /// a post marked sensitive or with a content warning (`spoiler_text`) is `sensitive`: left out,
    /// or shown behind its warning when the owner asks (``SensitivePosts``).
    static func reasonToLeaveOut(_ status: JSONValue, visibility: PostVisibility) -> String? {
        let kind = status["visibility"]?.text?.lowercased() ?? ""
        switch kind {
        case "public": break
        case "unlisted" where visibility == .unlisted: break
        case "private": return "followers-only"
        case "unlisted", "direct": return kind
        default: return kind.isEmpty ? "without a visibility" : kind
        }
        let warned = !(status["spoiler_text"]?.text?.trimmingWhitespace().isEmpty ?? true)
        if status["sensitive"] == .bool(true) || warned { return "sensitive" }
        return nil
    }

    private static func mastodonEntries(_ status: JSONValue) -> [JSONValue] {
        // A boost is another's post: not the account's photo.
        if let reblog = status["reblog"], reblog.isObject { return [] }
        let text = status["content"]?.text.map(HTMLText.plain)?.trimmingWhitespace() ?? ""
        let firstLine = text.split(separator: "\n").first.map { String($0.prefix(100)) }
        let author =
            status.value(atPath: "account.display_name")?.text.flatMap { $0.isEmpty ? nil : $0 }
            ?? status.value(atPath: "account.acct")?.text
        let tags = status["tags"]?.arrayValue?.compactMap { $0["name"]?.text } ?? []
        let attachments = status["media_attachments"]?.arrayValue ?? []
        return attachments.filter { $0["type"]?.text == "image" }.map { attachment in
            var fields: [String: JSONValue] = [:]
            func set(_ key: String, _ value: String?) {
                if let value = value?.trimmingWhitespace(), !value.isEmpty { fields[key] = .string(value) }
            }
            set("imageUrl", attachment["url"]?.text ?? attachment["remote_url"]?.text)
            set("id", attachment["id"]?.text)
            set("title", firstLine)
            set("alt", attachment["description"]?.text)
            set("description", text)
            set("date", status["created_at"]?.text)
            set("link", status["url"]?.text ?? status["uri"]?.text)
            set("creator", author)
            if !tags.isEmpty { fields["keywords"] = .array(tags.map(JSONValue.string)) }
            return .object(fields)
        }
    }

    // MARK: Piwigo

    private static func piwigoEntry(_ image: JSONValue) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        func set(_ key: String, _ value: String?) {
            if let value = value?.trimmingWhitespace(), !value.isEmpty { fields[key] = .string(value) }
        }
        set("imageUrl", image["element_url"]?.text)
        set("id", image["id"]?.text)
        set("title", image["name"]?.text ?? image["file"]?.text)
        set("description", image["comment"]?.text.map(HTMLText.plain))
        set("link", image["page_url"]?.text)
        // `2001-03-20 15:01:27`: the camera's local time, no zone.
        set("taken", image["date_creation"]?.text.map { $0.replacingOccurrences(of: " ", with: "T") })
        set("date", image["date_available"]?.text.map { $0.replacingOccurrences(of: " ", with: "T") + "Z" })
        return .object(fields)
    }
}
