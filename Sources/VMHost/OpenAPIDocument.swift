import HTTPServer

/// The OpenAPI 3.1 document of the HTTP API (API.md), served at `GET /openapi.json`.
///
/// The document is the file `Sources/VMHost/Resources/openapi.json`, kept by hand and embedded at build time
/// (scripts/generate-resources). `Tests/VMHostTests/OpenAPIDocumentTests.swift` checks that it parses, that
/// every route of the router is documented and every documented path is routed, and `scripts/api-test`
/// validates it and runs schemathesis against a live server.
enum OpenAPIDocument {
    /// The document's bytes, converted once.
    static let bytes: [UInt8] = Array(EmbeddedResources.openAPIJSON.utf8)

    /// Registers `GET /openapi.json` (`HEAD` too, through the router's fallback).
    static func register(on router: inout Router) {
        router.on(.get, "/openapi.json") { _ in
            .response(
                HTTPResponse(
                    status: 200,
                    headers: [
                        HTTPHeader("Content-Type", "application/json"),
                        HTTPHeader("Cache-Control", "public, max-age=300"),
                    ],
                    body: bytes
                )
            )
        }
    }
}
