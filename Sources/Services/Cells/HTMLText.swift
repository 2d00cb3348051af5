/// The plain text of the HTML fragments Flickr puts in descriptions and comments.
///
/// Tags are removed (`<br>` becomes a line break, and so do the edges of block elements such as `<p>`);
/// comments and the content of `<script>` and `<style>` are dropped; character references are decoded as HTML
/// decodes them in text (and Python's `html.unescape` does): all 2,231 named ones (``HTMLEntities``: `&eacute;`,
/// and the legacy ones HTML also reads without `;`, longest first: `&notit;` is `¬it;`) and numeric ones
/// (`&#39;`, `&#xE9;`, with or without `;`; ``numericReference(_:)`` says which code points are replaced or
/// dropped). A `<` that starts no tag and an unknown entity stay as written. Text that decoding produces is
/// never read as markup again (`&lt;b&gt;` is the text `<b>`). White space at both ends is trimmed; white
/// space inside is kept as written.
public enum HTMLText {
    /// Elements whose start and end are line breaks in the text.
    static let blockElements: Set<String> = [
        "p", "div", "blockquote", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "hr",
    ]

    /// Elements whose content is not text.
    static let rawTextElements: Set<String> = ["script", "style"]

    /// The plain text of `html`.
    public static func plainText(_ html: String) -> String {
        var reader = Reader(Array(html.unicodeScalars))
        var text = String.UnicodeScalarView()
        while let scalar = reader.peek() {
            if scalar == "<", let tag = reader.readMarkup() {
                switch tag {
                case .lineBreak:
                    text.append("\n")
                case .block:
                    if let last = text.last, last != "\n" { text.append("\n") }
                case .other:
                    break
                }
            } else if scalar == "&", reader.readCharacterReference(into: &text) {
                continue
            } else {
                text.append(scalar)
                reader.advance()
            }
        }
        return trimmed(text)
    }

    private static func trimmed(_ text: String.UnicodeScalarView) -> String {
        var slice = text[...]
        while let first = slice.first, first.properties.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.properties.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

extension HTMLText {
    /// What a piece of markup means for the text.
    enum Markup {
        case lineBreak
        case block
        case other
    }

    /// A cursor over the scalars of the HTML.
    struct Reader {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            position + offset < scalars.count ? scalars[position + offset] : nil
        }

        mutating func advance(_ count: Int = 1) {
            position = min(position + count, scalars.count)
        }

        /// Reads the tag, comment or declaration at `<` and returns its meaning; nil (reading nothing) when the
        /// `<` starts none.
        mutating func readMarkup() -> Markup? {
            guard let next = peek(1) else { return nil }
            if next == "!" {
                if peek(2) == "-" && peek(3) == "-" {
                    skip(past: Array("-->".unicodeScalars), from: position + 4)
                    return .other
                }
                return readToTagEnd(from: position + 2) ? .other : nil
            }
            if next == "?" { return readToTagEnd(from: position + 2) ? .other : nil }
            let closing = next == "/"
            let nameStart = position + (closing ? 2 : 1)
            guard nameStart < scalars.count, scalars[nameStart].isASCIILetter else { return nil }
            var nameEnd = nameStart
            while nameEnd < scalars.count, scalars[nameEnd].isASCIILetter || scalars[nameEnd].isASCIIDigit {
                nameEnd += 1
            }
            let name = String(String.UnicodeScalarView(scalars[nameStart..<nameEnd])).lowercased()
            guard readToTagEnd(from: nameEnd) else { return nil }
            if name == "br" { return .lineBreak }
            if !closing && HTMLText.rawTextElements.contains(name) {
                skipRawText(of: name)
                return .other
            }
            return HTMLText.blockElements.contains(name) ? .block : .other
        }

        /// Moves past the `>` that ends the tag, skipping quoted attribute values; false (not moving) when the
        /// tag never ends.
        private mutating func readToTagEnd(from start: Int) -> Bool {
            var index = start
            var quote: Unicode.Scalar?
            var afterEquals = false
            while index < scalars.count {
                let scalar = scalars[index]
                if let open = quote {
                    if scalar == open { quote = nil }
                } else if afterEquals && (scalar == "\"" || scalar == "'") {
                    quote = scalar
                } else if scalar == ">" {
                    position = index + 1
                    return true
                }
                if !scalar.properties.isWhitespace { afterEquals = quote == nil && scalar == "=" }
                index += 1
            }
            return false
        }

        /// Moves past the first `terminator` at or after `start`, or to the end.
        private mutating func skip(past terminator: [Unicode.Scalar], from start: Int) {
            var index = start
            while index + terminator.count <= scalars.count {
                if scalars[index..<index + terminator.count].elementsEqual(terminator) {
                    position = index + terminator.count
                    return
                }
                index += 1
            }
            position = scalars.count
        }

        /// Moves past the end tag of the raw-text element `name` (case-insensitive), or to the end.
        private mutating func skipRawText(of name: String) {
            let closing = Array("</\(name)".unicodeScalars)
            var index = position
            while index + closing.count <= scalars.count {
                let candidate = String(String.UnicodeScalarView(scalars[index..<index + closing.count])).lowercased()
                if candidate.unicodeScalars.elementsEqual(closing) {
                    position = index + closing.count
                    if !readToTagEnd(from: position) { position = scalars.count }
                    return
                }
                index += 1
            }
            position = scalars.count
        }

        /// Reads the character reference at `&`, appends what it stands for to `text` and returns true; false
        /// (reading nothing) when there is none.
        mutating func readCharacterReference(into text: inout String.UnicodeScalarView) -> Bool {
            if peek(1) == "#" { return readNumericReference(into: &text) }
            // The run read as a name (as `html.unescape` reads it): up to 32 scalars (the longest name, with its
            // `;`) that are not white space, `<`, `&`, `#` or `;`, then a `;` if there is one.
            let start = position + 1
            var end = start
            while end < scalars.count, end - start < 32, !scalars[end].endsReferenceName { end += 1 }
            guard end > start else { return false }
            if end < scalars.count, scalars[end] == ";" { end += 1 }
            if HTMLEntities.append(named: scalars[start..<end], to: &text) {
                position = end
                return true
            }
            // NB: else the longest legacy name (one HTML reads without `;`) that the run starts with, the rest
            // staying text: `&notit;` is `¬it;`, `&ampx` is `&x`. Names are letters and digits, of 2 or more.
            var longest = 0
            while start + longest < end - 1,
                scalars[start + longest].isASCIILetter || scalars[start + longest].isASCIIDigit
            {
                longest += 1
            }
            for length in stride(from: longest, through: 2, by: -1) {
                if HTMLEntities.append(named: scalars[start..<start + length], to: &text) {
                    position = start + length
                    return true
                }
            }
            return false
        }

        private mutating func readNumericReference(into text: inout String.UnicodeScalarView) -> Bool {
            var index = position + 2
            let hex = index < scalars.count && (scalars[index] == "x" || scalars[index] == "X")
            if hex { index += 1 }
            let radix: UInt32 = hex ? 16 : 10
            var value: UInt32 = 0
            var digits = 0
            var tooLarge = false
            while index < scalars.count, let digit = scalars[index].digitValue(radix: radix) {
                if !tooLarge {
                    value = value * radix + digit
                    tooLarge = value > 0x10_FFFF
                }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return false }
            if index < scalars.count, scalars[index] == ";" { index += 1 }
            position = index
            // NB: past U+10FFFF the value stops growing (and so never overflows): it is then what it is.
            if let scalar = HTMLText.numericReference(value) { text.append(scalar) }
            return true
        }
    }

    /// What `&#value;` stands for in text, by HTML's rules as Python's `html.unescape` applies them: NUL,
    /// surrogates and values past U+10FFFF are U+FFFD; 0x80...0x9F are read as Windows-1252 (`&#150;` is `–`);
    /// the other controls but tab, line feed, form feed and carriage return, and the noncharacters, are nil:
    /// dropped, as `html.unescape` drops them (a browser would keep them).
    static func numericReference(_ value: UInt32) -> Unicode.Scalar? {
        switch value {
        case 0, 0xD800...0xDFFF, 0x11_0000...: return "\u{FFFD}"
        case 0x80...0x9F: return Unicode.Scalar(windows1252[Int(value - 0x80)])
        case 0x01...0x08, 0x0B, 0x0E...0x1F, 0x7F, 0xFDD0...0xFDEF: return nil
        case _ where value & 0xFFFE == 0xFFFE: return nil
        default: return Unicode.Scalar(value)
        }
    }

    /// The code points of bytes 0x80...0x9F in Windows-1252, which HTML gives numeric references in that range
    /// (0x81, 0x8D, 0x8F, 0x90 and 0x9D, unassigned there, stand for themselves).
    static let windows1252: [UInt16] = [
        0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D,
        0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A,
        0x153, 0x9D, 0x17E, 0x178,
    ]
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }

    fileprivate var isASCIIDigit: Bool {
        ("0"..."9").contains(self)
    }

    /// Whether this scalar ends the name of a character reference (HTML's rule, as Python's `html.unescape`
    /// reads it).
    fileprivate var endsReferenceName: Bool {
        switch self {
        case "\t", "\n", "\u{C}", " ", "<", "&", "#", ";": return true
        default: return false
        }
    }

    /// The value of this digit in `radix` (10 or 16), or nil.
    fileprivate func digitValue(radix: UInt32) -> UInt32? {
        if isASCIIDigit { return value - 0x30 }
        guard radix == 16 else { return nil }
        if ("a"..."f").contains(self) { return value - 0x61 + 10 }
        if ("A"..."F").contains(self) { return value - 0x41 + 10 }
        return nil
    }
}
