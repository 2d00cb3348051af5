/// RFC 3339 timestamps from Unix time, without Foundation: the proleptic Gregorian calendar in UTC.
public enum RFC3339 {
    /// The seconds from 1970-01-01 to 0000-01-01 (negative) and to 10000-01-01, the range a four-digit year covers.
    static let supportedSeconds: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// `YYYY-MM-DDTHH:MM:SSZ` for `unixSeconds` seconds after 1970-01-01T00:00:00Z.
    /// - Returns: nil outside years 0000...9999.
    public static func utc(unixSeconds: Int64) -> String? {
        guard supportedSeconds.contains(unixSeconds) else { return nil }
        let secondsPerDay: Int64 = 86_400
        let days = floorDivide(unixSeconds, secondsPerDay)
        let secondOfDay = unixSeconds - days * secondsPerDay
        let date = civilDate(daysSinceEpoch: days)
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }

    /// The Gregorian date of the day `daysSinceEpoch` days after 1970-01-01.
    ///
    /// Counts in 400-year eras (146,097 days each) of years that start on 1 March, so the leap day is the last
    /// day of its year and month lengths repeat in a 5-month pattern of 153 days.
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let daysPerEra: Int64 = 146_097
        // NB: 719,468 days from 0000-03-01 to 1970-01-01.
        let shifted = daysSinceEpoch + 719_468
        let era = floorDivide(shifted, daysPerEra)
        let dayOfEra = shifted - era * daysPerEra  // 0...146096
        // Leap days so far: one every 4 years (1460 days), none every 100 (36524), one every 400 (146096).
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from 1 March
        let marchMonth = (5 * dayOfYear + 2) / 153  // 0 = March ... 11 = February
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(width - digits.count, 0)) + digits
    }
}
