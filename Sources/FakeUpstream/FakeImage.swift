import HTTPServer

/// The generated pictures the fake serves in place of Flickr's static images: an SVG landscape (sky, sun,
/// hills) in colours of the photo's own, sized like Flickr's image of that size.
enum FakeImage {
    /// Pixel sizes (width, height) of Flickr's size suffixes; no suffix is the 500 px image.
    private static let sizes: [String: (width: Int, height: Int)] = [
        "s": (75, 75), "q": (150, 150), "t": (100, 75), "m": (240, 180), "n": (320, 240), "w": (400, 300),
        "": (500, 375), "z": (640, 480), "c": (800, 600), "b": (1024, 768),
    ]

    /// The answer for `/images/{server}/{file}`: the picture when `file` is `{id}_{secret}[_{size}].jpg` of a
    /// photo the fake search hands out, on its server and with its secret; else `404`.
    static func response(server: String?, file: String?) -> HTTPResponse {
        guard let server, let file, file.hasSuffix(".jpg") else { return notFound }
        let parts = file.dropLast(4).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let photo = FakeFlickrPhoto(id: String(parts[0])),
            photo.secret == parts[1], photo.server == server,
            let size = sizes[parts.count == 3 ? String(parts[2]) : ""]
        else {
            return notFound
        }
        return HTTPResponse(
            status: 200,
            headers: [
                HTTPHeader("Content-Type", "image/svg+xml"), HTTPHeader("Cache-Control", "public, max-age=86400"),
            ],
            body: Array(svg(hash: photo.hash, width: size.width, height: size.height).utf8)
        )
    }

    private static var notFound: HTTPResponse {
        HTTPResponse(status: 404, headers: [HTTPHeader("Content-Type", "text/plain")], body: Array("Not Found".utf8))
    }

    /// The picture: a vertical sky gradient, a sun and two hills, with hues taken from `hash`.
    static func svg(hash: UInt64, width: Int, height: Int) -> String {
        let hue = Int(hash % 360)
        let sunX = width * (20 + Int(hash / 360 % 60)) / 100
        let sunY = height * (15 + Int(hash / 21_600 % 25)) / 100
        let radius = max(min(width, height) / 9, 3)
        let far = height * (55 + Int(hash / 540_000 % 15)) / 100
        let near = height * (72 + Int(hash / 8_100_000 % 12)) / 100
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)">\
            <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">\
            <stop offset="0" stop-color="hsl(\(hue), 70%, 72%)"/>\
            <stop offset="1" stop-color="hsl(\((hue + 40) % 360), 60%, 88%)"/></linearGradient></defs>\
            <rect width="\(width)" height="\(height)" fill="url(#sky)"/>\
            <circle cx="\(sunX)" cy="\(sunY)" r="\(radius)" fill="hsl(\((hue + 180) % 360), 85%, 65%)"/>\
            <path d="M0 \(far) Q\(width / 4) \(far - height / 6) \(width / 2) \(far) \
            Q\(width * 3 / 4) \(far + height / 12) \(width) \(far - height / 10) V\(height) H0 Z" fill="hsl(\((hue + 120) % 360), 35%, 45%)"/>\
            <path d="M0 \(near) Q\(width / 2) \(near - height / 8) \(width) \(near) V\(height) H0 Z" \
            fill="hsl(\((hue + 140) % 360), 40%, 30%)"/></svg>
            """
    }
}
