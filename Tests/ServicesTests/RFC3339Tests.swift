import Testing

@testable import Services

@Suite("RFC3339: Unix seconds as UTC timestamps")
struct RFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (1_688_551_200, "2023-07-05T10:00:00Z"),
        (1_295_288_643, "2011-01-17T18:24:03Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (951_868_799, "2000-02-29T23:59:59Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-2_208_988_800, "1900-01-01T00:00:00Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ])
    func knownInstants(seconds: Int64, text: String) {
        #expect(RFC3339.utc(unixSeconds: seconds) == text)
    }

    @Test func outsideFourDigitYearsIsNil() {
        #expect(RFC3339.utc(unixSeconds: 253_402_300_800) == nil)
        #expect(RFC3339.utc(unixSeconds: -62_167_219_201) == nil)
        #expect(RFC3339.utc(unixSeconds: .max) == nil)
        #expect(RFC3339.utc(unixSeconds: .min) == nil)
    }

    /// Every day from 1600-01-01 to 2400-12-31 against a plain day-by-day walk of the Gregorian calendar.
    @Test func everyDayAgreesWithADayByDayWalk() {
        func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
        func length(_ month: Int64, _ year: Int64) -> Int64 {
            switch month {
            case 2: isLeap(year) ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }
        // 1600-01-01 is 135,140 days before 1970-01-01.
        var date: (year: Int64, month: Int64, day: Int64) = (1600, 1, 1)
        var mismatches = 0
        for days in Int64(-135_140)...Int64(157_419) {
            let computed = RFC3339.civilDate(daysSinceEpoch: days)
            if computed != date { mismatches += 1 }
            date.day += 1
            if date.day > length(date.month, date.year) {
                date.day = 1
                date.month += 1
                if date.month > 12 {
                    date.month = 1
                    date.year += 1
                }
            }
        }
        #expect(mismatches == 0)
        #expect(date == (2401, 1, 1), "the walk ended where expected, so the day counts are right")
        #expect(RFC3339.civilDate(daysSinceEpoch: 0) == (1970, 1, 1))
    }

    @Test func timeOfDay() {
        #expect(RFC3339.utc(unixSeconds: 86_399) == "1970-01-01T23:59:59Z")
        #expect(RFC3339.utc(unixSeconds: 45_296) == "1970-01-01T12:34:56Z")
        #expect(RFC3339.utc(unixSeconds: -86_400) == "1969-12-31T00:00:00Z")
        #expect(RFC3339.utc(unixSeconds: -86_401) == "1969-12-30T23:59:59Z")
    }
}
