import Services
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Character references are decoded exactly as Python's `html.unescape` decodes them, for every one of HTML's
/// 2,231 names (with and without `;`, followed by more text) and numeric references across the ranges HTML
/// treats specially: the expected results are `Generated/html-unescape.txt`, which scripts/generate-html-entities
/// writes with Python (from the same `html.entities.html5` as the table the server decodes with).
@Suite("HTMLEntities: every reference as html.unescape decodes it")
struct HTMLEntitiesTests {
    /// One line of the test data: its number, the input and what `html.unescape` makes of it.
    struct Case {
        let line: Int
        let input: String
        let expected: String
    }

    /// The cases of `Generated/html-unescape.txt`, next to this file.
    static func cases() throws -> [Case] {
        var directory = Substring(#filePath)
        if let slash = directory.lastIndex(of: "/") { directory = directory[..<slash] }
        let text = try readFile(directory + "/Generated/html-unescape.txt")
        var cases: [Case] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty && !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let input = unescaped(fields[0]), let expected = unescaped(fields[1]) else {
                throw TestDataError("line \(index + 1) is not an input, a tab and a result: \(line)")
            }
            cases.append(Case(line: index + 1, input: input, expected: expected))
        }
        return cases
    }

    @Test func everyCaseDecodesAsPython() throws {
        let cases = try Self.cases()
        #expect(cases.count > 2 * 2_231, "the data holds every name, with and without `;`")
        var failures = 0
        for testCase in cases {
            let decoded = HTMLText.plainText(testCase.input)
            // NB: scalars, not strings: `==` on strings would take `é` for `e` and a combining accent.
            if !decoded.unicodeScalars.elementsEqual(testCase.expected.unicodeScalars) {
                failures += 1
                if failures <= 20 {
                    Issue.record(
                        "line \(testCase.line): \(testCase.input) decodes to \(Self.escaped(decoded)), not \(Self.escaped(testCase.expected))"
                    )
                }
            }
        }
        #expect(failures == 0, "\(failures) of \(cases.count) cases decode differently from html.unescape")
    }

    @Test func theDataHasTheCasesItClaims() throws {
        let cases = try Self.cases()
        let byInput = Dictionary(cases.map { ($0.input, $0.expected) }, uniquingKeysWith: { first, _ in first })
        #expect(byInput["[&eacute;]"] == "[\u{E9}]")
        #expect(byInput["[&eacute]"] == "[\u{E9}]")
        #expect(byInput["[&CounterClockwiseContourIntegral;]"] == "[\u{2233}]")
        #expect(byInput["[&#x80;]"] == "[\u{20AC}]")
        #expect(cases.filter { $0.input.hasPrefix("[&") && $0.input.hasSuffix(";]") }.count >= 2_125)
    }

    /// `text` with `\u{HEX}` read as the scalar; nil if one is malformed.
    static func unescaped(_ text: Substring) -> String? {
        var result = String.UnicodeScalarView()
        var rest = text.unicodeScalars[...]
        while let scalar = rest.popFirst() {
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            guard rest.popFirst() == "u", rest.popFirst() == "{", let close = rest.firstIndex(of: "}"),
                let value = UInt32(String(String.UnicodeScalarView(rest[..<close])), radix: 16),
                let decoded = Unicode.Scalar(value)
            else { return nil }
            result.append(decoded)
            rest = rest[rest.index(after: close)...]
        }
        return String(result)
    }

    /// `text` as the test data writes it, for messages.
    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            ("!"..."~").contains(scalar) && scalar != "\\"
                ? String(scalar) : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }.joined()
    }
}

struct TestDataError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The whole file at `path` as UTF-8 text.
func readFile(_ path: Substring) throws -> String {
    guard let file = fopen(String(path), "rb") else { throw TestDataError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
