/// A parsed JSON value. Objects are dictionaries: a repeated key keeps its last value.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Follows a dotted path (`media.large.url`); an empty path is the value itself.
    package func value(atPath path: String) -> JSONValue? {
        guard !path.isEmpty else { return self }
        var current: JSONValue? = self
        for key in path.split(separator: ".") {
            current = current?[String(key)]
        }
        return current
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// Strings as they are, numbers as written (an id of 7 reads "7"); nil for anything else.
    package var text: String? {
        switch self {
        case .string(let string): string
        case .number(_, let text): text
        default: nil
        }
    }

    package var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
