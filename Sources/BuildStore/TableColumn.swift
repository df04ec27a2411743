package import GRDB
import Synchronization

/// A table's columns, named once: the cases, in order, are the columns of the table's rows as its
/// owner reads and writes them. The SELECT and INSERT lists are built from them, and a row is read
/// by a case (``GRDB/Row/subscript(_:)``), which is a read by position: as fast as counting, and
/// nothing to count. A column's name is its case's, in snake case (`finalURL` is `final_url`).
package protocol TableColumn: CaseIterable, RawRepresentable, Sendable where RawValue == Int, AllCases == [Self] {}

/// Each column type's names, worked out once: a case's name comes by reflection, which costs a
/// microsecond or so, and a thumbnail set's write names its 29 columns twice.
private let namesByType = Mutex<[ObjectIdentifier: [String]]>([:])

extension TableColumn {
    /// Every column's name, in order.
    package static var names: [String] {
        if let names = namesByType.withLock({ $0[ObjectIdentifier(Self.self)] }) { return names }
        let names = allCases.map(\.derivedName)
        namesByType.withLock { $0[ObjectIdentifier(Self.self)] = names }
        return names
    }

    /// The column's name in the table.
    package var name: String { Self.names[rawValue] }

    /// The case's name in snake case.
    private var derivedName: String {
        let characters = Array(String(describing: self))
        var name = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let before = characters[index - 1]
                let after = index + 1 < characters.count ? characters[index + 1] : nil
                // `finalURL` is `final_url`; `placeholderURIText` would be `placeholder_uri_text`.
                if before.isLowercase || before.isNumber || (before.isUppercase && after?.isLowercase == true) {
                    name.append("_")
                }
            }
            name += character.lowercased()
        }
        return name
    }

    /// Every column's name, in order, separated by commas: a SELECT or INSERT list.
    package static var list: String {
        names.joined(separator: ", ")
    }

    /// A `?` per column, separated by commas: an INSERT's values.
    package static var placeholders: String {
        Array(repeating: "?", count: allCases.count).joined(separator: ", ")
    }

    /// The values of a row, one per column in order, each given by `value`: a switch over the
    /// columns there is exhaustive, so a column added is a value to give.
    package static func values(_ value: (Self) -> ColumnValue) -> [ColumnValue] {
        allCases.map(value)
    }
}

extension Row {
    /// The value of `column` in a row selected with its table's ``TableColumn/list``.
    @inline(__always)
    package subscript<Value: DatabaseValueConvertible>(_ column: some TableColumn) -> Value {
        self[column.rawValue]
    }

    /// The value of `column` in a row selected with its table's ``TableColumn/list``, read
    /// straight from SQLite's statement.
    @inline(__always)
    package subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some TableColumn)
        -> Value
    {
        self[column.rawValue]
    }
}
