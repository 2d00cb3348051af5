import EventLoop
import HTTPServer
import Testing

@Suite("Router")
struct RouterTests {
    @LoopActor
    func router() -> Router {
        var router = Router()
        router.on(.get, "/v1/sessions/:id/search") { _ in .response(.noContent) }
        router.on(.post, "/v1/sessions/:id/search/text") { _ in .response(.noContent) }
        router.on(.get, "/a/:x/b/:y") { _ in .response(.noContent) }
        router.on(.get, "/twice/:x/:x") { _ in .response(.noContent) }
        router.on(.delete, "/v1/sessions/:id/search") { _ in .response(.noContent) }
        return router
    }

    @Test @LoopActor func matchedRoutesCaptureTheirParametersInPatternOrder() {
        let router = router()
        guard case .found(_, let pattern, let parameters) = router.match(method: .get, segments: ["a", "1", "b", "2"])
        else {
            Issue.record("no match")
            return
        }
        #expect(pattern == "/a/:x/b/:y")
        #expect(parameters["x"] == "1")
        #expect(parameters["y"] == "2")
        #expect(parameters["z"] == nil)
        #expect(parameters.names == ["x", "y"])

        guard case .found(_, _, let repeated) = router.match(method: .get, segments: ["twice", "1", "2"]) else {
            Issue.record("no match")
            return
        }
        #expect(repeated["x"] == "2", "a repeated name takes the later value")
        #expect(repeated.names == ["x"])

        guard
            case .found(_, let head, let session) = router.match(
                method: .head, segments: ["v1", "sessions", "s1", "search"])
        else {
            Issue.record("HEAD does not fall back to GET")
            return
        }
        #expect(head == "/v1/sessions/:id/search")
        #expect(session["id"] == "s1")
    }

    @Test @LoopActor func otherMethodsAnswer405WithTheAllowedOnesAndUnknownPaths404() {
        let router = router()
        guard
            case .methodNotAllowed(let pattern, let allowed) = router.match(
                method: .put, segments: ["v1", "sessions", "s1", "search"])
        else {
            Issue.record("PUT is not 405")
            return
        }
        #expect(pattern == "/v1/sessions/:id/search")
        #expect(allowed == [.delete, .get, .head])
        guard case .notFound = router.match(method: .get, segments: ["v1", "sessions", "s1"]) else {
            Issue.record("a shorter path matched")
            return
        }
        guard case .notFound = router.match(method: .get, segments: ["a", "", "b", "2"]) else {
            Issue.record("an empty parameter matched")
            return
        }
        let routes = router.registeredRoutes.map { "\($0.pattern) \($0.methods.map(\.rawValue))" }
        #expect(
            routes == [
                #"/v1/sessions/:id/search ["DELETE", "GET"]"#, #"/v1/sessions/:id/search/text ["POST"]"#,
                #"/a/:x/b/:y ["GET"]"#, #"/twice/:x/:x ["GET"]"#,
            ])
    }
}
