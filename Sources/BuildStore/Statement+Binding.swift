package import GRDB
import GRDBSQLite

/// One column's value as SQLite binds it.
package enum ColumnValue: Equatable, Sendable {
    case text(String?)
    case integer(Int64)
    case real(Double)

    /// The value as GRDB's own arguments hold it.
    package var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        }
    }
}

extension Statement {
    /// Runs this statement, one that returns no row, once with `values` bound by position through
    /// SQLite's own calls. GRDB's `StatementArguments` box every value in an existential and bind
    /// them through nested closures: writing the 90,878 records of a --refresh that way took
    /// 1.7 s, most of it building and binding arguments, against 0.3 s for SQLite's own work.
    package func execute(binding values: [ColumnValue]) throws {
        let handle = sqliteStatement
        precondition(values.count == Int(sqlite3_bind_parameter_count(handle)), "one value per parameter")
        // A statement that failed is reset by its next use, which reports nothing new.
        sqlite3_reset(handle)
        for (index, value) in zip(CInt(1)..., values) {
            let code: CInt =
                switch value {
                case .text(nil): sqlite3_bind_null(handle, index)
                case .text(let text?):
                    // Copied by SQLite (the pointer lives only as long as the closure).
                    text.withCString { sqlite3_bind_text(handle, index, $0, CInt(text.utf8.count), Self.copied) }
                case .integer(let integer): sqlite3_bind_int64(handle, index, integer)
                case .real(let real): sqlite3_bind_double(handle, index, real)
                }
            try check(code, expected: SQLITE_OK)
        }
        // Reset however the step ends: GRDB's own next use of this cached statement would
        // otherwise report this step's error again.
        defer { sqlite3_reset(handle) }
        try check(sqlite3_step(handle), expected: SQLITE_DONE)
    }

    private func check(_ code: CInt, expected: CInt) throws {
        guard code != expected else { return }
        let message = sqlite3_db_handle(sqliteStatement).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// `SQLITE_TRANSIENT`, a C macro Swift does not import: SQLite copies the bound bytes.
    private static let copied = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
