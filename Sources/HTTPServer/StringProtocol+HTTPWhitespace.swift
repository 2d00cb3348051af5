extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional white space in header values).
    public func trimmingHTTPWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

extension StringProtocol {
    /// The parts of a header value between `separator`s, each without surrounding HTTP whitespace; runs of
    /// separators give no empty parts (as `split` does).
    ///
    /// NB: splits the UTF-8 bytes, not `Character`s: a delimiter next to a combining or prepended mark
    /// (`,\u{301}`) is part of one grapheme, yet still a delimiter on the wire (found by scripts/fuzz).
    public func httpFieldParts(separatedBy separator: Unicode.Scalar, maxSplits: Int = .max) -> [String] {
        utf8.split(separator: UInt8(ascii: separator), maxSplits: maxSplits).map {
            String(decoding: $0, as: UTF8.self).trimmingHTTPWhitespace()
        }
    }
}
