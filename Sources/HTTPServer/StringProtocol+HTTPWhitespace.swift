extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space in header values).
    public func trimmingHTTPWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
