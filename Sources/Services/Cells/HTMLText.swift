/// The plain text of the HTML fragments Flickr puts in descriptions and comments.
///
/// Tags are removed (`<br>` becomes a line break, and so do the edges of block elements such as `<p>`);
/// comments and the content of `<script>` and `<style>` are dropped; character references are decoded: the
/// common named ones (`&amp;`, `&quot;`, `&nbsp;`, ...) and numeric ones (`&#39;`, `&#xE9;`; an
/// invalid code point becomes U+FFFD). A `<` that starts no tag, an unknown entity and an entity without its
/// `;` stay as written. Text that decoding produces is never read as markup again (`&lt;b&gt;` is the text
/// `<b>`). White space at both ends is trimmed; white space inside is kept as written.
public enum HTMLText {
    /// The named character references decoded (HTML's most common ones; others stay as written).
    static let namedEntities: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "copy": "\u{A9}", "reg": "\u{AE}", "trade": "\u{2122}", "hellip": "\u{2026}", "mdash": "\u{2014}",
        "ndash": "\u{2013}", "lsquo": "\u{2018}", "rsquo": "\u{2019}", "ldquo": "\u{201C}", "rdquo": "\u{201D}",
        "laquo": "\u{AB}", "raquo": "\u{BB}", "middot": "\u{B7}", "deg": "\u{B0}", "times": "\u{D7}",
        "euro": "\u{20AC}", "pound": "\u{A3}", "yen": "\u{A5}", "cent": "\u{A2}", "sect": "\u{A7}",
        "para": "\u{B6}", "bull": "\u{2022}",
    ]

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
            } else if scalar == "&", let decoded = reader.readCharacterReference() {
                text.append(decoded)
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

        /// Reads the character reference at `&` and returns its scalar; nil (reading nothing) when there is no
        /// complete, known reference.
        mutating func readCharacterReference() -> Unicode.Scalar? {
            if peek(1) == "#" { return readNumericReference() }
            var index = position + 1
            var name = ""
            while index < scalars.count, name.unicodeScalars.count < 10,
                scalars[index].isASCIILetter || scalars[index].isASCIIDigit
            {
                name.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard index < scalars.count, scalars[index] == ";", let scalar = HTMLText.namedEntities[name] else {
                return nil
            }
            position = index + 1
            return scalar
        }

        private mutating func readNumericReference() -> Unicode.Scalar? {
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
            guard digits > 0, index < scalars.count, scalars[index] == ";" else { return nil }
            position = index + 1
            // NB: as HTML does, NUL, surrogates and values past U+10FFFF become the replacement character.
            guard !tooLarge, value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
            return scalar
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }

    fileprivate var isASCIIDigit: Bool {
        ("0"..."9").contains(self)
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
