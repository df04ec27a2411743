/// What a photo says about itself, as its photographer wrote it: into the file (EXIF, IPTC,
/// XMP), into a sidecar beside it, or into the feed. Every value is untrusted text, cleaned and
/// bounded on the way in (``PhotoMetadata/bounded()``) and escaped on output. Where it was taken
/// (``location``) is kept for the build alone: the output shows it only as `location:` allows.
package struct PhotoMetadata: Sendable, Hashable, Codable {
    /// The values, held in one allocation that copies share, and none at all when nothing is
    /// said: every photo and thumbnail set carries one, and at 100,000 photos inline fields
    /// (160 bytes each) were 30 MB of a build's peak for photos that mostly say nothing.
    private struct Fields: Sendable, Hashable {
        var title: String?
        var description: String?
        var alt: String?
        var keywords: [String] = []
        var taken: CaptureTime?
        var rating: Int?
        var creator: String?
        var rights: String?
        var licence: String?
        var location: GeoPoint?
    }

    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage?

    private var fields: Fields {
        get { storage?.fields ?? Fields() }
        set { storage = newValue == Fields() ? nil : Storage(newValue) }
    }

    package var title: String? {
        get { fields.title }
        set { fields.title = newValue }
    }
    /// The caption, plain text (a Markdown sidecar's caption is ``Photo/captionMarkdown``).
    package var description: String? {
        get { fields.description }
        set { fields.description = newValue }
    }
    /// What a reader who cannot see the photo is told (IPTC's Alt Text (Accessibility)).
    package var alt: String? {
        get { fields.alt }
        set { fields.alt = newValue }
    }
    package var keywords: [String] {
        get { fields.keywords }
        set { fields.keywords = newValue }
    }
    package var taken: CaptureTime? {
        get { fields.taken }
        set { fields.taken = newValue }
    }
    /// 1 to 5 stars; nil when unrated (0) or rejected (-1).
    package var rating: Int? {
        get { fields.rating }
        set { fields.rating = newValue }
    }
    package var creator: String? {
        get { fields.creator }
        set { fields.creator = newValue }
    }
    /// The copyright notice, as written (`© 2024 Ada Lovelace`).
    package var rights: String? {
        get { fields.rights }
        set { fields.rights = newValue }
    }
    /// The licence's page (http or https): Creative Commons' `cc:license`, else
    /// `xmpRights:WebStatement`.
    package var licence: String? {
        get { fields.licence }
        set { fields.licence = newValue }
    }
    /// Where the photo was taken (its GPS position), as the photo says it; never shown unless
    /// `location:` asks for it, and then rounded (``GeoPoint/rounded(to:)``).
    package var location: GeoPoint? {
        get { fields.location }
        set { fields.location = newValue }
    }

    package init(
        title: String? = nil, description: String? = nil, alt: String? = nil, keywords: [String] = [],
        taken: CaptureTime? = nil, rating: Int? = nil, creator: String? = nil, rights: String? = nil,
        licence: String? = nil, location: GeoPoint? = nil
    ) {
        fields = Fields(
            title: title, description: description, alt: alt, keywords: keywords, taken: taken, rating: rating,
            creator: creator, rights: rights, licence: licence, location: location)
    }

    package static func == (lhs: PhotoMetadata, rhs: PhotoMetadata) -> Bool {
        lhs.storage === rhs.storage || lhs.fields == rhs.fields
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    /// Nothing said.
    package var isEmpty: Bool { storage == nil }

    package enum CodingKeys: String, CodingKey {
        case title, description, alt, keywords, taken, rating, creator, rights, licence, location
    }

    /// Written as the manifest writes it: absent values and an empty keyword list left out.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(alt, forKey: .alt)
        if !keywords.isEmpty { try container.encode(keywords, forKey: .keywords) }
        try container.encodeIfPresent(taken, forKey: .taken)
        try container.encodeIfPresent(rating, forKey: .rating)
        try container.encodeIfPresent(creator, forKey: .creator)
        try container.encodeIfPresent(rights, forKey: .rights)
        try container.encodeIfPresent(licence, forKey: .licence)
        try container.encodeIfPresent(location, forKey: .location)
    }

    /// Read back through ``bounded()``: a record is as untrusted as the photo it came from.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = PhotoMetadata(
            title: try container.decodeIfPresent(String.self, forKey: .title),
            description: try container.decodeIfPresent(String.self, forKey: .description),
            alt: try container.decodeIfPresent(String.self, forKey: .alt),
            keywords: try container.decodeIfPresent([String].self, forKey: .keywords) ?? [],
            taken: try container.decodeIfPresent(CaptureTime.self, forKey: .taken),
            rating: try container.decodeIfPresent(Int.self, forKey: .rating),
            creator: try container.decodeIfPresent(String.self, forKey: .creator),
            rights: try container.decodeIfPresent(String.self, forKey: .rights),
            licence: try container.decodeIfPresent(String.self, forKey: .licence),
            location: try container.decodeIfPresent(GeoPoint.self, forKey: .location)
        ).bounded()
    }

    /// Each field of `self`, else the same field of `other`: `self` is the source that wins.
    package func filled(from other: PhotoMetadata) -> PhotoMetadata {
        PhotoMetadata(
            title: title ?? other.title, description: description ?? other.description, alt: alt ?? other.alt,
            keywords: keywords.isEmpty ? other.keywords : keywords, taken: taken ?? other.taken,
            rating: rating ?? other.rating, creator: creator ?? other.creator, rights: rights ?? other.rights,
            licence: licence ?? other.licence, location: location ?? other.location)
    }

    /// The longest title, alt text, creator and rights kept, in characters.
    package static let lineLimit = 300
    /// The longest description kept.
    package static let textLimit = 5_000
    /// The most keywords kept, and the longest.
    package static let keywordLimit = 100
    package static let keywordLengthLimit = 100

    /// The values as a page may carry them: control characters dropped (a description keeps its
    /// line breaks), white space trimmed, empty values gone, lengths bounded, keywords unique in
    /// their first spelling, a licence only when it is an http(s) URL, a rating only 1 to 5.
    package func bounded() -> PhotoMetadata {
        func line(_ text: String?) -> String? {
            guard let text else { return nil }
            let cleaned = text.cleanedLine().trimmingWhitespace()
            guard !cleaned.isVisiblyEmpty else { return nil }
            return Self.shortened(cleaned, to: Self.lineLimit)
        }
        var seen: Set<String> = []
        var keywords: [String] = []
        for keyword in self.keywords {
            guard keywords.count < Self.keywordLimit, let word = line(keyword),
                word.count <= Self.keywordLengthLimit, seen.insert(word.lowercased()).inserted
            else { continue }
            keywords.append(word)
        }
        let licence = line(licence).flatMap { text -> String? in
            let lower = text.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), !text.contains(" ") else { return nil }
            return text
        }
        return PhotoMetadata(
            title: line(title), description: description.flatMap(Self.paragraphs), alt: line(alt),
            keywords: keywords, taken: taken, rating: rating.flatMap { (1...5).contains($0) ? $0 : nil },
            creator: line(creator), rights: line(rights), licence: licence,
            location: location.flatMap { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) })
    }

    /// Text that keeps its line breaks (as `\n`), each line cleaned; nil when it shows nothing.
    static func paragraphs(_ text: String) -> String? {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            .map { $0.cleanedLine().trimmingWhitespace() }
        let joined = lines.joined(separator: "\n").trimmingWhitespace()
        guard !joined.isVisiblyEmpty else { return nil }
        return shortened(joined, to: textLimit)
    }

    /// The fields of `self` that a page shows when `winner` (a feed's or sidecar's) comes first:
    /// those `winner` does not give.
    package func shown(under winner: PhotoMetadata) -> PhotoMetadata {
        PhotoMetadata(
            title: winner.title == nil ? title : nil, description: winner.description == nil ? description : nil,
            alt: winner.alt == nil ? alt : nil, keywords: winner.keywords.isEmpty ? keywords : [],
            taken: winner.taken == nil ? taken : nil, rating: winner.rating == nil ? rating : nil,
            creator: winner.creator == nil ? creator : nil, rights: winner.rights == nil ? rights : nil,
            licence: winner.licence == nil ? licence : nil, location: winner.location == nil ? location : nil)
    }

    /// At most `limit` characters, cut after the last whole word that fits (or mid-word, when
    /// that word is most of the limit) and ended with an ellipsis: cutting again changes nothing,
    /// so a record read back (a manifest, a remote set) is what was written, and its MAC holds.
    package static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        var room = limit - 1
        while true {
            let head = text.prefix(room)
            // The next character is a space: the last word fits whole.
            let nextIsSpace = text.dropFirst(room).first?.isWhitespace == true
            var cut = head
            if !nextIsSpace, let space = head.lastIndex(where: \.isWhitespace),
                head.distance(from: head.startIndex, to: space) >= limit / 2
            {
                cut = head[..<space]
            }
            while let last = cut.last, last.isWhitespace || ",;:".contains(last) { cut = cut.dropLast() }
            // What the cut left open (an isolate, an override) is closed again, within the limit,
            // line by line as the lines were isolated.
            let shortened = (String(cut) + "…").split(separator: "\n", omittingEmptySubsequences: false)
                .map { String($0).isolatingDirections }.joined(separator: "\n")
            if shortened.count <= limit || room <= 1 { return shortened }
            room -= shortened.count - limit
        }
    }

}

/// A place on Earth, in degrees (WGS 84, as GPS and OpenStreetMap give it).
package struct GeoPoint: Sendable, Hashable, Codable {
    package let latitude: Double
    package let longitude: Double

    /// Nil unless both are finite and on Earth (a photo's broken GPS block says 91° or NaN).
    package init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        // No negative zero: -0.0 and 0.0 are one place, one text.
        self.latitude = latitude == 0 ? 0 : latitude
        self.longitude = longitude == 0 ? 0 : longitude
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        guard let point = GeoPoint(latitude: latitude, longitude: longitude) else {
            throw DecodingError.dataCorruptedError(
                forKey: .latitude, in: container, debugDescription: "not a place on Earth")
        }
        self = point
    }

    private enum CodingKeys: String, CodingKey {
        case latitude, longitude
    }

    /// The point with each coordinate rounded to `places` decimals: 1 place is about 11 km,
    /// 5 places about a metre.
    package func rounded(to places: Int) -> GeoPoint {
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        return GeoPoint(
            latitude: (latitude * scale).rounded() / scale, longitude: (longitude * scale).rounded() / scale)
            ?? self
    }

    /// `59.91387,10.75225`: how the build store keeps it.
    package var stored: String { "\(latitude),\(longitude)" }

    package init?(stored text: String) {
        let parts = text.split(separator: ",")
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// A GPS coordinate as EXIF keeps it: degrees, minutes and seconds as rationals
    /// (`59/1 54/1 31203/625`), and its reference (`N`, `S`, `E`, `W`).
    package static func degrees(rationals text: String, reference: String?) -> Double? {
        let numbers = text.split(separator: " ").map { part -> Double? in
            let fraction = part.split(separator: "/")
            guard fraction.count == 2, let top = Double(fraction[0]), let bottom = Double(fraction[1]), bottom != 0
            else { return nil }
            return top / bottom
        }
        guard (1...3).contains(numbers.count), numbers.allSatisfy({ $0 != nil }) else { return nil }
        let values = numbers.map { $0 ?? 0 } + [0, 0]
        let value = values[0] + values[1] / 60 + values[2] / 3600
        switch reference?.trimmingWhitespace().uppercased() {
        case "S", "W": return -value
        default: return value
        }
    }

    /// A GPS coordinate as XMP keeps it (`59,54.83208N`, `59,54,49.9N`, or decimal degrees).
    /// `reference`: the hemisphere given beside the value (`exif:GPSLatitudeRef`, `S`), which
    /// Apple Photos writes with a plain decimal instead of the letter XMP puts in the value;
    /// a letter in the value wins.
    package static func degrees(xmp text: String, reference: String? = nil) -> Double? {
        var body = Substring(text.trimmingWhitespace())
        var sign = 1.0
        if let last = body.last, "NSEW".contains(last.uppercased()) {
            if "SW".contains(last.uppercased()) { sign = -1 }
            body = body.dropLast()
        } else if let first = reference?.trimmingWhitespace().uppercased().first, "SW".contains(first) {
            sign = -1
        }
        let parts = body.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let values = parts.map { $0 ?? 0 } + [0, 0]
        // A sign on the degrees (`-33,52.13`) is the whole coordinate's, as a letter is.
        if values[0] < 0 || (values[0] == 0 && values[0].sign == .minus) { sign = -sign }
        return sign * (abs(values[0]) + values[1] / 60 + values[2] / 3600)
    }
}

/// What the site's albums are (`albums:`).
package enum AlbumSource: String, Sendable, CaseIterable, Encodable {
    /// The feed's: a folder feed's folders, a feed's album field.
    case feed
    /// One per year the photos were taken, newest first; the undated last.
    case year
}

/// How much of where a photo was taken the site shows (`location:`).
package enum LocationPrecision: String, Sendable, CaseIterable, Encodable {
    /// Nothing: no coordinate in any file of the site (the default).
    case off
    /// Rounded to 0.1 degree, about 11 km: the town, not the house.
    case city
    /// Rounded to 5 decimals, about a metre.
    case exact

    /// Decimal places kept; nil when nothing is shown.
    package var places: Int? {
        switch self {
        case .off: nil
        case .city: 1
        case .exact: 5
        }
    }
}

extension PhotoMetadata: CustomReflectable {
    /// The fields, as a struct's mirror would show them (PageFingerprintTests reads them).
    package var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: fields).children, displayStyle: .struct)
    }
}

/// When a photo was taken: the camera's local date and time, and its offset from UTC when the
/// photo recorded one (EXIF 2.31's OffsetTimeOriginal, an XMP date with a zone); or the day alone,
/// when that is all the source says (IPTC's Date Created without its Time Created, a bare XMP
/// day): shown as that day, never as midnight.
package struct CaptureTime: Sendable, Hashable, Codable, Comparable {
    /// `2024-05-01T14:32:10`, to the second (`:00` where the source gave only minutes), or
    /// `2024-05-01` for a day alone.
    package var local: String
    /// `+02:00`, `-05:30` or `Z`; nil when unknown.
    package var offset: String?

    package init?(local: String, offset: String? = nil) {
        if local.utf8.count == 10 {
            // A day has no offset: a zone means nothing without a time.
            guard Self.isLocalDateTime(local + "T00:00:00") else { return nil }
            self.local = local
            self.offset = nil
            return
        }
        guard Self.isLocalDateTime(local) else { return nil }
        self.local = local
        self.offset = offset.flatMap(Self.offsetMinutes) != nil ? offset : nil
    }

    /// `2024-05-01`.
    package var day: String { String(local.prefix(10)) }

    /// Whether the source gave a time of day, not the day alone.
    package var hasTime: Bool { local.utf8.count > 10 }

    /// The same moment in the zone `offset` (`+02:00`); nil when this time's own offset is not
    /// known (a local time cannot be moved) or `offset` is no offset.
    package func inZone(_ offset: String) -> CaptureTime? {
        guard hasTime, self.offset != nil, let minutes = Self.offsetMinutes(offset) else { return nil }
        // The wall clock there is UTC's at the moment plus the offset: RFC 3339's text less its `Z`.
        let local = CivilDate.rfc3339(secondsSince1970: instant + minutes * 60).dropLast()
        return CaptureTime(local: String(local), offset: offset)
    }

    package enum CodingKeys: String, CodingKey {
        case local, offset
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let local = try container.decode(String.self, forKey: .local)
        guard let time = CaptureTime(local: local, offset: try container.decodeIfPresent(String.self, forKey: .offset))
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .local, in: container, debugDescription: "not a date and time (YYYY-MM-DDTHH:MM:SS)")
        }
        self = time
    }

    /// Seconds since 1970 in UTC when the offset is known, else the local time read as if it
    /// were UTC (the best guess a gallery of one trip can make): what photos are sorted by.
    package var instant: Int {
        var numbers = local.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        // A day alone sorts as its first moment.
        if numbers.count == 3 { numbers += [0, 0, 0] }
        guard numbers.count == 6 else { return 0 }
        let days = CivilDate.daysFromCivil(year: numbers[0], month: numbers[1], day: numbers[2])
        let minutes = offset.flatMap(Self.offsetMinutes) ?? 0
        return days * 86_400 + numbers[3] * 3_600 + numbers[4] * 60 + numbers[5] - minutes * 60
    }

    package static func < (lhs: CaptureTime, rhs: CaptureTime) -> Bool {
        (lhs.instant, lhs.local, lhs.offset ?? "") < (rhs.instant, rhs.local, rhs.offset ?? "")
    }

    /// Reads `2024:05:01 14:32:10` (EXIF), `2024-05-01T14:32:10+02:00`, `2024-05-01T14:32`,
    /// `2024-05-01` (XMP and front matter, ISO 8601), with `offset` from a separate field.
    package static func parse(_ text: String, offset separateOffset: String? = nil) -> CaptureTime? {
        var text = text.trimmingWhitespace()
        guard text.utf8.count >= 10, text.utf8.count <= 40, text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var offset = separateOffset?.trimmingWhitespace()
        // A zone at the end: Z, or ±HH:MM after the time.
        if text.hasSuffix("Z") {
            offset = offset ?? "Z"
            text.removeLast()
        } else if text.count > 16, let sign = text.lastIndex(where: { $0 == "+" || $0 == "-" }),
            text.distance(from: text.startIndex, to: sign) >= 16
        {
            offset = offset ?? String(text[sign...])
            text = String(text[..<sign])
        }
        let day = String(text.prefix(10).map { $0 == ":" ? "-" : $0 })
        // The day alone: no time, and so no zone.
        if text.count == 10 { return CaptureTime(local: day) }
        var time = text.count > 11 ? String(text.dropFirst(11)) : "00:00:00"
        // Fractions of a second are dropped.
        if let dot = time.firstIndex(of: ".") { time = String(time[..<dot]) }
        if time.count == 5 { time += ":00" }
        let separator = text.count > 10 ? text[text.index(text.startIndex, offsetBy: 10)] : "T"
        guard separator == "T" || separator == " " else { return nil }
        return CaptureTime(local: day + "T" + time, offset: offset)
    }

    private static func isLocalDateTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 19 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 4, 7: guard byte == UInt8(ascii: "-") else { return false }
            case 10: guard byte == UInt8(ascii: "T") else { return false }
            case 13, 16: guard byte == UInt8(ascii: ":") else { return false }
            default: guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            }
        }
        let numbers = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard numbers.count == 6, numbers[0] > 0, (1...12).contains(numbers[1]),
            (1...CivilDate.daysIn(month: numbers[1], year: numbers[0])).contains(numbers[2])
        else { return false }
        return numbers[3] < 24 && numbers[4] < 60 && numbers[5] < 61
    }

    /// `+02:00` -> 120, `Z` -> 0; nil when it is no offset.
    static func offsetMinutes(_ text: String) -> Int? {
        if text == "Z" { return 0 }
        let bytes = Array(text.utf8)
        let digits = [1, 2, 4, 5]
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
            bytes[3] == UInt8(ascii: ":"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }),
            let hours = Int(text.dropFirst().prefix(2)),
            let minutes = Int(text.suffix(2)), hours <= 14, minutes < 60
        else { return nil }
        let total = hours * 60 + minutes
        return bytes[0] == UInt8(ascii: "-") ? -total : total
    }
}
