import HTTPServer
import JSON
import Sessions
import Testing
import VMHost
import ViewModels

/// The pure decoding the handlers run (also the fuzz target's surface, scripts/fuzz), with the regressions
/// the fuzzer found: delimiters were matched as `Character`s, so one followed by a combining mark (or after
/// a prepended one) was not a delimiter.
@Suite struct RequestDecodingTests {
    @Test func queryDelimitersAreBytesEvenBeforeACombiningMark() throws {
        let components = try #require(URIComponents(target: "/v1/sessions/s/events?format=snapshot&\u{301}x=1"))
        #expect(components.queryParameters() == ["format": "snapshot", "\u{301}x": "1"])
        #expect(try StreamFormat(query: components.queryParameters()["format"]) == .snapshots)

        let split = try #require(URIComponents(target: "/healthz?a=\u{73D}&b=%C3%A9+c&&=x&d"))
        #expect(split.queryParameters() == ["a": "\u{73D}", "b": "é c", "d": ""])
    }

    @Test func preferDelimitersAreBytesEvenNextToAMark() {
        #expect(PreferWait.seconds(in: "x\u{600},wait=5") == 5)
        #expect(PreferWait.seconds(in: "wait=7,\u{301}respond-async") == 7)
        #expect(PreferWait.seconds(in: "respond-async, WAIT = 45") == 30)
        #expect(PreferWait.seconds(in: "wait=-1, wait=2") == 2)
        #expect(PreferWait.seconds(in: "wait=\u{301}5") == nil)
    }

    @Test func searchTextBody() throws {
        let plain = try SearchTextCommand(body: ["text": "kittens"])
        #expect(plain.text == "kittens" && !plain.autoSearch)
        #expect(try SearchTextCommand(body: ["text": "", "autoSearch": true]).autoSearch)
        #expect(try SearchTextCommand(body: ["text": "a", "autoSearch": .null]).autoSearch == false)
        #expect(throws: CommandRejection.invalidField("text", "must be a string")) {
            try SearchTextCommand(body: ["text": 1])
        }
        #expect(throws: CommandRejection.invalidField("autoSearch", "must be a boolean")) {
            try SearchTextCommand(body: ["text": "a", "autoSearch": "yes"])
        }
    }

    @Test func searchExecuteAndVisibleBodies() throws {
        #expect(try SearchExecuteCommand(body: [:]).text == nil)
        #expect(try SearchExecuteCommand(body: ["text": .null]).text == nil)
        #expect(try SearchExecuteCommand(body: ["text": "sunset"]).text == "sunset")
        #expect(throws: CommandRejection.invalidField("text", "must be a string")) {
            try SearchExecuteCommand(body: ["text": []])
        }

        let ids = (0..<SearchVisibleCommand.maxPhotos).map { JSONValue.string("\($0)") }
        #expect(
            try SearchVisibleCommand(body: ["photoIds": .array(ids)]).photoIds.count == SearchVisibleCommand.maxPhotos)
        #expect(throws: CommandRejection.invalidField("photoIds", "may list at most 500 photos")) {
            try SearchVisibleCommand(body: ["photoIds": .array(ids + ["x"])])
        }
        #expect(throws: CommandRejection.invalidField("photoIds", "must be an array of strings")) {
            try SearchVisibleCommand(body: ["photoIds": ["a", 1]])
        }
    }

    @Test func bodiesAreJSONObjectsWithoutDuplicateKeys() throws {
        func decode(_ text: String) throws -> JSONObject {
            try Array(text.utf8).withUnsafeBufferPointer { try HTTPRequest.decodeJSONObjectBody($0) }
        }
        #expect(try decode("").isEmpty)
        #expect(try decode(#" {"text": "a"} "#) == ["text": "a"])
        #expect(throws: HTTPError.self) { try decode("[]") }
        #expect(throws: HTTPError.self) { try decode(#"{"text": "a", "text": "b"}"#) }
        #expect(throws: HTTPError.self) { try decode("{") }
    }
}
