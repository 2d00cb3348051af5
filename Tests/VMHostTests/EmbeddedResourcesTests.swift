import Testing
import VMHostTesting

/// The OpenAPI document and the web client are the files under `Sources/VMHost/Resources/`, served byte for
/// byte (scripts/generate-resources embeds them; this fails when its output is stale), and the page runs under
/// a Content-Security-Policy that allows no inline script or style.
@Suite("Embedded resources")
struct EmbeddedResourcesTests {
    /// `Sources/VMHost/Resources/<name>` in this package.
    static func resource(_ name: String) throws -> [UInt8] {
        var path = Substring(#filePath)
        for _ in 0..<3 {  // …/Tests/VMHostTests/EmbeddedResourcesTests.swift → the package root
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return Array(try String(contentsOfLog: path + "/Sources/VMHost/Resources/" + name).utf8)
    }

    @Test func servedFilesAreTheResourceFiles() async throws {
        try await withApp(via: .router) { app in
            let files = [("/openapi.json", "openapi.json"), ("/app.js", "web/app.js"), ("/app.css", "web/app.css")]
            for (path, file) in files {
                let response = try await app.client.get(path)
                #expect(response.status == 200, "\(path)")
                #expect(
                    response.body == (try Self.resource(file)),
                    "\(path) differs from Sources/VMHost/Resources/\(file): run scripts/generate-resources"
                )
            }
            // The page is the file with the asset versions filled in.
            let page = try await app.client.get("/").text
            let js = try #require(try await app.client.get("/app.js").header("ETag")).filter { $0 != "\"" }
            let css = try #require(try await app.client.get("/app.css").header("ETag")).filter { $0 != "\"" }
            let file = String(decoding: try Self.resource("web/index.html"), as: UTF8.self)
            #expect(file.contains("/app.js?v={{JS_VERSION}}") && file.contains("/app.css?v={{CSS_VERSION}}"))
            let expected = file.replacing("{{JS_VERSION}}", with: js).replacing("{{CSS_VERSION}}", with: css)
            #expect(page == expected, "/ differs from Sources/VMHost/Resources/web/index.html")
        }
    }

    @Test func webClientIsServedWithAContentSecurityPolicy() async throws {
        try await withApp(via: .router) { app in
            for path in ["/", "/app.js", "/app.css"] {
                let response = try await app.client.get(path)
                let policy = try #require(response.header("Content-Security-Policy"), "\(path)")
                let directives = Dictionary(
                    policy.split(separator: ";").map { directive in
                        let words = directive.split(separator: " ").map(String.init)
                        return (words.first ?? "", Array(words.dropFirst()))
                    },
                    uniquingKeysWith: { first, _ in first }
                )
                #expect(directives["default-src"] == ["'none'"], "\(path): \(policy)")
                #expect(directives["script-src"] == ["'self'"], "\(path): \(policy)")
                #expect(directives["style-src"] == ["'self'"], "\(path): \(policy)")
                #expect(directives["connect-src"] == ["'self'"], "\(path): \(policy)")
                #expect(directives["frame-ancestors"] == ["'none'"], "\(path): \(policy)")
                let images = directives["img-src"] ?? []
                for host in ["'self'", "https://*.staticflickr.com", "https://cdn.dummyjson.com"] {
                    #expect(images.contains(host), "\(path): img-src lacks \(host)")
                }
                #expect(!policy.contains("unsafe"), "\(path): \(policy)")
                // The embedded fake serves the images here: its exact origin, and no other loopback origin.
                let base = await app.fakeUpstreamURLs().base
                let fake = String(base.prefix { $0 != "/" }) + "//" + base.dropFirst(7).prefix { $0 != "/" }
                #expect(fake.hasPrefix("http://127.0.0.1:") && !fake.hasSuffix(":*") && fake.count > 17, "\(fake)")
                #expect(images.filter { $0.hasPrefix("http:") } == [fake], "\(path): \(policy)")
            }
        }
    }

    /// In production (Flickr's own image host), the policy allows no plain `http` and no loopback origin.
    @Test func theProductionPolicyAllowsNoLoopbackImages() async throws {
        let upstream = try await SharedUpstream()
        try await withApp(
            via: .router,
            {
                $0.flickrURL = upstream.baseURL + "/services/rest/"
                $0.productsURL = upstream.baseURL
            }
        ) { app in
            let policy = try #require(try await app.client.get("/").header("Content-Security-Policy"))
            #expect(!policy.contains("127.0.0.1") && !policy.contains("http:"), "\(policy)")
            #expect(policy.contains("img-src 'self' data: https://*.staticflickr.com https://cdn.dummyjson.com;"))
        }
        await upstream.shutdown()
    }

    /// What the policy forbids is not in the page: every script is an external file of our own, and no
    /// element carries an inline event handler or style attribute.
    @Test func pageHasNoInlineScriptOrStyle() throws {
        let page = String(decoding: try Self.resource("web/index.html"), as: UTF8.self).lowercased()
        #expect(!page.contains("<style"))
        #expect(!page.contains("javascript:"))
        var rest = Substring(page)
        var scripts = 0
        while let open = rest.firstRange(of: "<script") {
            let tagEnd = rest[open.upperBound...].firstIndex(of: ">") ?? rest.endIndex
            #expect(rest[open.upperBound..<tagEnd].contains(" src=\"/"), "an inline <script>")
            scripts += 1
            rest = rest[tagEnd...]
        }
        #expect(scripts == 1)
        for tag in page.split(separator: "<").dropFirst() {
            let attributes = tag.prefix { $0 != ">" }.split(whereSeparator: { $0 == " " || $0 == "\n" }).dropFirst()
            for attribute in attributes {
                #expect(!attribute.hasPrefix("on"), "inline handler in <\(tag.prefix(40))")
                #expect(!attribute.hasPrefix("style="), "inline style in <\(tag.prefix(40))")
            }
        }
    }
}
