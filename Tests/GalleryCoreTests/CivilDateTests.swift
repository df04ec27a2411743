import Foundation
import Testing

@testable import GalleryCore

@Suite struct CivilDateTests {
    @Test func daysAndDatesAreEachOthersInverse() {
        // Every day from 1600 to 2400, leap days and the days before 1970 included.
        let start = CivilDate.daysFromCivil(year: 1600, month: 1, day: 1)
        let end = CivilDate.daysFromCivil(year: 2400, month: 12, day: 31)
        var mismatches = 0
        for days in start...end {
            let date = CivilDate.civil(fromDays: days)
            if CivilDate.daysFromCivil(year: date.year, month: date.month, day: date.day) != days
                || !(1...CivilDate.daysIn(month: date.month, year: date.year)).contains(date.day)
            {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        #expect(CivilDate.civil(fromDays: 0) == (1970, 1, 1))
        #expect(CivilDate.civil(fromDays: -1) == (1969, 12, 31))
    }

    @Test func secondsAreWrittenAsRFC3339InUTC() {
        #expect(CivilDate.rfc3339(secondsSince1970: 0) == "1970-01-01T00:00:00Z")
        #expect(CivilDate.rfc3339(secondsSince1970: 1_711_381_099) == "2024-03-25T15:38:19Z")
        #expect(CivilDate.rfc3339(secondsSince1970: 951_782_400) == "2000-02-29T00:00:00Z")
        #expect(CivilDate.rfc3339(secondsSince1970: -1) == "1969-12-31T23:59:59Z")
        // Foundation agrees on a spread of instants.
        let formatter = ISO8601DateFormatter()
        for seconds in stride(from: -2_000_000_000, through: 4_000_000_000, by: 123_456_789) {
            #expect(
                CivilDate.rfc3339(secondsSince1970: seconds)
                    == formatter.string(from: Date(timeIntervalSince1970: Double(seconds))))
        }
    }
}
