import Redis
import Testing

@Suite("RedisCommand encoding")
struct RedisCommandTests {
    /// The Redis protocol's array of bulk strings, the way the protocol documentation writes it.
    static func resp(_ arguments: [[UInt8]]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            bytes += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
        }
        return bytes
    }

    @Test func encodesEveryKindOfArgumentAsBulkStrings() {
        let binary: [UInt8] = [0, 13, 10, 255, 36, 42]
        var command = RedisCommand()
        command.append("EVALSHA")
        command.append(String(repeating: "a", count: 40))
        command.append(0)
        command.append(-12)
        command.append(binary)
        command.append("ünïcødé ✓")
        command.append("")
        command.appendArgument { bytes in bytes += Array(#"{"version":7}"#.utf8) }
        command.appendArgument { _ in }
        let expected: [[UInt8]] = [
            Array("EVALSHA".utf8), Array(String(repeating: "a", count: 40).utf8), Array("0".utf8), Array("-12".utf8),
            binary, Array("ünïcødé ✓".utf8), [], Array(#"{"version":7}"#.utf8), [],
        ]
        #expect(command.count == expected.count)
        #expect(command.encoded == Self.resp(expected))
        #expect(RedisCommand(expected).encoded == Self.resp(expected))
        for (index, argument) in expected.enumerated() {
            #expect(command.argument(index).map(Array.init) == argument)
        }
        #expect(command.argument(expected.count) == nil)
        #expect(command.argument(-1) == nil)
    }

    @Test func integersOfEveryWidthAndArgumentsOfAnnouncedLength() {
        let integers = [0, 9, 10, -1, -9, 1_234_567_890, -1_234_567_890, Int.max, Int.min]
        var command = RedisCommand()
        for integer in integers { command.append(integer) }
        command.appendArgument(length: 11) { bytes in
            bytes += Array("vmhost:{".utf8)
            bytes += [0, 255, 125]
        }
        command.appendArgument(length: 0) { _ in }
        let expected = integers.map { Array(String($0).utf8) } + [Array("vmhost:{".utf8) + [0, 255, 125], []]
        #expect(command.count == expected.count)
        #expect(command.encoded == Self.resp(expected))
    }

    /// A long argument written in place (its length prefix has several digits) and another command's arguments
    /// appended; the header is rewritten at every seal, the count grows past one digit.
    @Test func appendedCommandsAndLongArgumentsKeepTheEncodingExact() {
        let long = [UInt8](repeating: 120, count: 70_000)
        var tail = RedisCommand()
        for index in 0..<11 { tail.append(index) }
        tail.appendArgument { $0 += long }
        var command = RedisCommand()
        command.append("EVAL")
        command.append(contentsOf: tail)
        let expected = [Array("EVAL".utf8)] + (0..<11).map { Array(String($0).utf8) } + [long]
        #expect(command.encoded == Self.resp(expected))
        #expect(!command.isSealed)
        command.seal()
        #expect(command.isSealed)
        #expect(command.withEncoded { Array($0) } == Self.resp(expected))
        command.append("more")
        #expect(!command.isSealed)
        #expect(command.withEncoded { Array($0) } == nil, "an argument after the seal unseals")
        command.seal()
        #expect(command.withEncoded { Array($0) } == Self.resp(expected + [Array("more".utf8)]))
        #expect(RedisCommand().encoded == Array("*0\r\n".utf8))
    }

    @Test func theArgumentsFromAnIndexOnAreACommandOfTheirOwn() {
        let long = [UInt8](repeating: 7, count: 1_000)
        var command = RedisCommand()
        command.append("EVALSHA")
        command.append("0123456789abcdef")
        command.append(2)
        command.appendArgument { $0 += long }
        command.append("")
        command.seal()
        let rest = command.arguments(from: 2)
        #expect(rest.count == 3 && !rest.isSealed)
        #expect(rest.encoded == Self.resp([Array("2".utf8), long, []]))
        #expect(rest.argument(1).map(Array.init) == long && rest.argument(2)?.isEmpty == true)
        #expect(command.arguments(from: 0).encoded == command.encoded)
        #expect(command.arguments(from: 5).encoded == Array("*0\r\n".utf8), "past the last: no arguments")
        var byText = RedisCommand()
        byText.append("EVAL")
        byText.append("return 1")
        byText.append(contentsOf: rest)
        #expect(byText.encoded == Self.resp([Array("EVAL".utf8), Array("return 1".utf8), Array("2".utf8), long, []]))
    }
}

@Suite("RedisArguments encoding")
struct RedisArgumentsTests {
    /// Every kind of argument, appended to arguments of their own and then to a command, encodes as the command's
    /// own appends do.
    @Test func argumentsAppendedToACommandAreTheCommandsOwnEncoding() {
        let binary: [UInt8] = [0, 13, 10, 255, 36, 42]
        let long = [UInt8](repeating: 0x61, count: 5000)
        var arguments = RedisArguments(capacity: 16)
        arguments.append("update")
        arguments.append(0)
        arguments.append(-12)
        arguments.append(Int.max)
        arguments.append(binary)
        arguments.append(long)
        arguments.append("ünïcødé ✓")
        arguments.append("")
        arguments.appendArgument(length: 13) { $0.put(#"{"version":7}"#) }
        arguments.appendArgument { $0.put(long) }
        arguments.appendArgument { _ in }
        var keys = RedisCommand()
        keys.append("k1")
        keys.append("k2")
        arguments.append(encoded: keys.encodedArguments, count: keys.count)

        var expected = RedisCommand()
        expected.append("EVALSHA")
        for argument: [UInt8] in [
            Array("update".utf8), Array("0".utf8), Array("-12".utf8), Array(String(Int.max).utf8), binary, long,
            Array("ünïcødé ✓".utf8), [], Array(#"{"version":7}"#.utf8), long, [], Array("k1".utf8), Array("k2".utf8),
        ] {
            expected.append(argument)
        }
        var command = RedisCommand()
        command.append("EVALSHA")
        command.append(arguments)
        #expect(arguments.count == 13)
        #expect(command.count == expected.count)
        #expect(command.encoded == expected.encoded)
        #expect(arguments.byteCount == expected.byteCount - Array("$7\r\nEVALSHA\r\n".utf8).count)
    }
}
