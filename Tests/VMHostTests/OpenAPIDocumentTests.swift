import JSON
import Testing
import VMHostTesting

/// The served OpenAPI document: valid JSON, OpenAPI 3.1, and in step with the router.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// Every route the router serves, as registered (`:id` parameters), with its methods.
    static let routes: [(pattern: String, methods: Set<String>)] = [
        ("/", ["get"]),
        ("/healthz", ["get"]),
        ("/metrics", ["get"]),
        ("/openapi.json", ["get"]),
        ("/v1/sessions", ["post"]),
        ("/v1/sessions/:id", ["get", "delete"]),
        ("/v1/sessions/:id/events", ["get"]),
        ("/v1/sessions/:id/search", ["get"]),
        ("/v1/sessions/:id/search/events", ["get"]),
        ("/v1/sessions/:id/search/text", ["post"]),
        ("/v1/sessions/:id/search/execute", ["post"]),
        ("/v1/sessions/:id/search/load-more", ["post"]),
        ("/v1/sessions/:id/search/cancel", ["post"]),
        ("/v1/sessions/:id/search/visible", ["post"]),
        ("/v1/sessions/:id/products", ["get"]),
        ("/v1/sessions/:id/products/events", ["get"]),
        ("/v1/sessions/:id/products/refresh", ["post"]),
        ("/v1/sessions/:id/products/load-more", ["post"]),
        ("/v1/sessions/:id/products/cancel", ["post"]),
    ]

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

    @Test func servedDocumentIsOpenAPI31AndListsEveryRoute() async throws {
        try await withApp { app in
            let response = try await app.client.get("/openapi.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "public, max-age=300")
            let document = try JSONParser.parse(response.body)
            let version = try #require(document["openapi"]?.stringValue)
            #expect(version.hasPrefix("3.1."))
            #expect(document["info"]?["title"]?.stringValue?.isEmpty == false)

            let paths = try #require(document["paths"]?.objectValue)
            for route in Self.routes {
                let path = Self.openAPIPath(route.pattern)
                guard let item = paths[path]?.objectValue else {
                    Issue.record("\(path) is not documented")
                    continue
                }
                let documented = Set(item.keys.filter { Self.httpMethods.contains($0) })
                #expect(documented == route.methods, "\(path)")
            }
            let served = Set(Self.routes.map { Self.openAPIPath($0.pattern) })
            #expect(Set(paths.keys) == served, "documented paths the router does not serve")
        }
    }

    @Test func everyListedRouteIsServed() async throws {
        try await withApp { app in
            // A well-formed id that was never issued: each session route must answer session_not_found, not
            // not_found (no such route) or method_not_allowed.
            let unknown = "AAAAAAAAAAAAAAAAAAAAAA"
            for route in Self.routes {
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
        try await withApp { app in
            Self.checkReferences(in: try await Self.servedDocument(app))
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

