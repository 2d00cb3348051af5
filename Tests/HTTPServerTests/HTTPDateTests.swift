import EventLoop
import Foundation
import Testing
import VMHostTesting

@testable import HTTPServer

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_481_853, "Tue, 24 Nov 2026 00:57:33 GMT"), (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func formatsIMFFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(seconds) == expected)
    }

    /// Every response carries one `Date` (ours, so evhttp adds none), and it is the current time.
    @Test @LoopActor func aResponseCarriesOneCurrentDate() async throws {
        let (server, _) = makeServer()
        let port = try server.start()
        let before = Int(Date().timeIntervalSince1970)
        let response = try await TestHTTPClient(port: port).get("/hello")
        let after = Int(Date().timeIntervalSince1970)
        await server.shutdown()
        let dates = response.headers.filter { $0.name.lowercased() == "date" }.map(\.value)
        #expect(dates.count == 1)
        #expect((before...after).map(HTTPDate.format).contains(dates.first ?? ""))
    }
}
