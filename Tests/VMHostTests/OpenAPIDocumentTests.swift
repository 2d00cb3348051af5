import EventLoop
import HTTPServer
import JSON
import Logging
import Testing
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// The served OpenAPI document: valid JSON, OpenAPI 3.1, the file it is kept in, and in step with the router.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// Every route the router serves, as registered (`:id` parameters), with its methods (lowercase; the
    /// implicit `HEAD` of a `GET` left out): read from the router `VMHostApplication` serves, so a new route
    /// is checked without touching this test.
    @LoopActor
    static func routes() -> [(pattern: String, methods: Set<String>)] {
        let application = VMHostApplication(configuration: VMHostConfiguration(), logger: Logger(label: "openapi-test"))
        return application.makeRouter().registeredRoutes.map { route in
            (route.pattern, Set(route.methods.map { $0.rawValue.lowercased() }))
        }
    }

    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `/v1/sessions/:id` → `/v1/sessions/{id}`.
    static func openAPIPath(_ pattern: String) -> String {
        substituting(pattern) { "{\($0)}" }
    }

    /// The pattern with each `:name` segment replaced.
    static func substituting(_ pattern: String, _ parameter: (Substring) -> String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix(":") ? parameter(segment.dropFirst()) : String(segment)
        }.joined(separator: "/")
    }

    /// The document as the server serves it.
    static func servedDocument(_ app: TestApplication) async throws -> JSONValue {
        let response = try await app.client.get("/openapi.json")
        #expect(response.status == 200)
        return try JSONParser.parse(response.body)
    }

    @Test func servedDocumentIsOpenAPI31() async throws {
        try await withApp(via: .router) { app in
            let response = try await app.client.get("/openapi.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "public, max-age=300")
            let document = try JSONParser.parse(response.body)
            let version = try #require(document["openapi"]?.stringValue)
            #expect(version.hasPrefix("3.1."))
            #expect(document["info"]?["title"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedPathIsRouted() async throws {
        let routes = await Self.routes()
        #expect(routes.count > 10, "the router lists its routes")
        try await withApp(via: .router) { app in
            let document = try await Self.servedDocument(app)
            let paths = try #require(document["paths"]?.objectValue)
            for route in routes {
                let path = Self.openAPIPath(route.pattern)
                guard let item = paths[path]?.objectValue else {
                    Issue.record("\(path) is routed but not documented")
                    continue
                }
                let documented = Set(item.keys.filter { Self.httpMethods.contains($0) })
                #expect(documented == route.methods, "\(path): documented methods differ from the routed ones")
            }
            let routed = Set(routes.map { Self.openAPIPath($0.pattern) })
            let unrouted = Set(paths.keys).subtracting(routed)
            #expect(unrouted.isEmpty, "documented paths the router does not serve: \(unrouted.sorted())")
        }
    }

    @Test func everyRouteAnswersAsDocumentedForAnUnknownSession() async throws {
        let routes = await Self.routes()
        try await withApp(via: .router) { app in
            // A well-formed id that was never issued: each session route must answer session_not_found, not
            // not_found (no such route) or method_not_allowed.
            let unknown = "AAAAAAAAAAAAAAAAAAAAAA"
            for route in routes {
                let path = Self.substituting(route.pattern) { _ in unknown }
                for method in route.methods.sorted() {
                    let response = try await app.client.request(method.uppercased(), path)
                    if route.pattern.contains(":id") {
                        #expect(response.status == 404, "\(method) \(path)")
                        #expect(response.errorCode == "session_not_found", "\(method) \(path)")
                    } else {
                        #expect([200, 201].contains(response.status), "\(method) \(path): \(response.status)")
                    }
                }
            }
        }
    }

    @Test func everyReferenceResolvesAndOperationIdsAreUnique() async throws {
        try await withApp(via: .router) { app in
            Self.checkReferences(in: try await Self.servedDocument(app))
        }
    }

    /// API.md "Durable sessions and several nodes": every command (a `POST` on a session) takes
    /// `Idempotency-Key` and may answer `422 idempotency_key_reused`; its success answers may carry
    /// `Idempotent-Replayed`; every response of every operation documents `X-VMHost-Node`.
    @Test func commandsAreIdempotentAndEveryResponseNamesItsNode() async throws {
        try await withApp(via: .router) { app in
            let document = try await Self.servedDocument(app)
            let paths = try #require(document["paths"]?.objectValue)
            func resolved(_ value: JSONValue?) -> JSONValue? {
                guard let reference = value?["$ref"]?.stringValue else { return value }
                var target: JSONValue? = document
                for token in reference.dropFirst(2).split(separator: "/") { target = target?[String(token)] }
                return target
            }
            var commands = 0
            for (path, item) in paths {
                for (method, operation) in item.objectValue ?? [:] where Self.httpMethods.contains(method) {
                    let responses = operation["responses"]?.objectValue ?? [:]
                    #expect(!responses.isEmpty, "\(method) \(path) has no responses")
                    for (status, response) in responses {
                        #expect(
                            resolved(response)?["headers"]?["X-VMHost-Node"] != nil,
                            "\(method) \(path) \(status) does not document X-VMHost-Node"
                        )
                    }
                    guard method == "post", path.hasPrefix("/v1/sessions/{id}/") else { continue }
                    commands += 1
                    let parameters = (operation["parameters"]?.arrayValue ?? []).compactMap(resolved)
                    #expect(
                        parameters.contains { $0["name"]?.stringValue == "Idempotency-Key" },
                        "\(path) lacks the Idempotency-Key header"
                    )
                    let reused = resolved(responses["422"])
                    #expect(
                        reused?["content"]?["application/json"]?["schema"]?["allOf"]?[1]?["properties"]?["error"]?[
                            "properties"]?["code"]?["enum"] == .array([.string("idempotency_key_reused")]),
                        "\(path) lacks 422 idempotency_key_reused"
                    )
                    for status in ["200", "202"] where responses[status] != nil {
                        #expect(
                            resolved(responses[status])?["headers"]?["Idempotent-Replayed"] != nil,
                            "\(path) \(status) lacks Idempotent-Replayed"
                        )
                    }
                }
            }
            #expect(commands >= 10, "the session commands are documented")
        }
    }

    static func checkReferences(in document: JSONValue) {
        var references: [String] = []
        var operationIDs: [String] = []
        func walk(_ value: JSONValue) {
            if let object = value.objectValue {
                for (key, member) in object {
                    if key == "$ref", let reference = member.stringValue { references.append(reference) }
                    if key == "operationId", let id = member.stringValue { operationIDs.append(id) }
                    walk(member)
                }
            } else if let array = value.arrayValue {
                array.forEach(walk)
            }
        }
        walk(document)
        #expect(!references.isEmpty)
        for reference in Set(references) {
            #expect(reference.hasPrefix("#/"), "\(reference)")
            var target: JSONValue? = document
            for token in reference.dropFirst(2).split(separator: "/") {
                target = target?[String(token)]
            }
            #expect(target != nil, "\(reference) does not resolve")
        }
        #expect(Set(operationIDs).count == operationIDs.count, "duplicate operationId")
    }
}

/// ``APIErrorCode`` is the one list of error codes: the OpenAPI document names exactly these (in the `Error`
/// schema's list and in the code enums of its responses), and the web client switches on no other.
@Suite("Error codes")
struct ErrorCodeTests {
    static let root = String(#filePath.dropLast("Tests/VMHostTests/OpenAPIDocumentTests.swift".count))

    @Test func theOpenAPIDocumentNamesExactlyTheServersCodes() throws {
        let path = Self.root + "Sources/VMHost/Resources/openapi.json"
        let document = try JSONParser.parse(try #require(readFile(path), "cannot read \(path)"))
        let codes = Set(APIErrorCode.allCases.map(\.rawValue))
        let errorSchema = try #require(document["components"]?["schemas"]?["Error"]?["description"]?.stringValue)
        #expect(Self.backquoted(errorSchema).filter { $0.contains("_") || codes.contains($0) } == codes)
        var enumerated: Set<String> = []
        Self.collectCodeEnums(document, into: &enumerated)
        #expect(!enumerated.isEmpty)
        #expect(enumerated.subtracting(codes).isEmpty, "codes in the document the server never answers")
    }

    @Test func theWebClientSwitchesOnlyOnTheServersCodes() throws {
        let path = Self.root + "Sources/VMHost/Resources/web/app.js"
        let script = String(decoding: try #require(readFile(path), "cannot read \(path)"), as: UTF8.self)
        let codes = Set(APIErrorCode.allCases.map(\.rawValue))
        // Every double-quoted snake_case literal of the script ("session_not_found") is taken for an error code.
        let characters = Array(script.unicodeScalars)
        var snakeCase: [String] = []
        var index = 0
        while index < characters.count {
            defer { index += 1 }
            guard characters[index] == "\"" else { continue }
            var end = index + 1
            while end < characters.count, characters[end] == "_" || ("a"..."z").contains(characters[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(characters[(index + 1)..<end]))
            if end < characters.count, characters[end] == "\"", word.contains("_") { snakeCase.append(word) }
        }
        #expect(!snakeCase.isEmpty)
        #expect(Set(snakeCase).subtracting(codes).isEmpty, "codes the web client expects that the server never sends")
    }

    /// The words in backquotes of `text`.
    static func backquoted(_ text: String) -> Set<String> {
        Set(
            text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
                .map { String($0.element) })
    }

    /// Every string in an `enum` of a `code` property, anywhere in the document.
    static func collectCodeEnums(_ value: JSONValue, into codes: inout Set<String>) {
        if let object = value.objectValue {
            for (key, member) in object {
                if key == "code", let values = member["enum"]?.arrayValue {
                    codes.formUnion(values.compactMap(\.stringValue))
                }
                collectCodeEnums(member, into: &codes)
            }
        } else if let array = value.arrayValue {
            for element in array { collectCodeEnums(element, into: &codes) }
        }
    }
}
