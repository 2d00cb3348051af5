/// Number parsing: `.int` when integral and in range, otherwise a correctly rounded `.double`.
extension JSONReader {
    /// Parses the number starting at `offset` (a `-` or a digit).
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = offset
        var position = offset
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }

        var integer = 0
        var integerOverflow = false
        var mantissa = DecimalMantissa()

        try expectDigit(at: position)
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count && isDigit(bytes[position]) {
                throw JSONParseError(offset: position - 1, message: "leading zero in number")
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                let digit = Int(bytes[position] &- UInt8(ascii: "0"))
                if !integerOverflow {
                    let (shifted, overflow1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) =
                        negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                    integerOverflow = overflow1 || overflow2
                    integer = next
                }
                mantissa.appendIntegerDigit(UInt64(digit))
                position += 1
            }
        }

        var isInteger = true
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try expectDigit(at: position)
            while position < bytes.count, isDigit(bytes[position]) {
                mantissa.appendFractionDigit(UInt64(bytes[position] &- UInt8(ascii: "0")))
                position += 1
            }
        }

        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            try expectDigit(at: position)
            var exponent = 0
            while position < bytes.count, isDigit(bytes[position]) {
                // Saturate: anything this large is out of range (or zero) anyway.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[position] &- UInt8(ascii: "0")) }
                position += 1
            }
            mantissa.exponent += exponentNegative ? -exponent : exponent
        }
        offset = position

        if isInteger && !integerOverflow { return .int(integer) }

        let value: Double
        if let exact = mantissa.exactValue {
            value = negative ? -exact : exact
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            value = Double(text) ?? .infinity
        }
        guard value.isFinite else { throw JSONParseError(offset: start, message: "number out of range") }
        return .double(value)
    }

    private func expectDigit(at position: Int) throws(JSONParseError) {
        guard position < bytes.count else { throw endOfInput() }
        guard isDigit(bytes[position]) else { throw unexpected(at: position) }
    }

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
