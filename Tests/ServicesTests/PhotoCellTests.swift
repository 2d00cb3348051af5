import Services
import Testing

@Suite("Photo cells")
struct PhotoCellTests {
    let photo = FlickrPhoto(
        id: "58729990000", title: "Curious Train", server: "7372", secret: "0cdaa299b9",
        imageHost: FlickrImageHost(baseURL: "http://127.0.0.1:8080/images/"))

    @Test func aFlickrPhotoKeepsItsPartsAndFormatsItsURLs() {
        let cell = PhotoCell(photo)
        #expect(cell.images == .flickr(host: photo.imageHost, server: "7372", secret: "0cdaa299b9"))
        #expect(cell.url == "http://127.0.0.1:8080/images/7372/58729990000_0cdaa299b9_m.jpg")
        #expect(cell.thumbnailUrl == "http://127.0.0.1:8080/images/7372/58729990000_0cdaa299b9_s.jpg")
        #expect(cell.url == photo.url)
        #expect(cell.thumbnailUrl == photo.thumbnailUrl)
        #expect(
            cell.json == [
                "id": "58729990000", "title": "Curious Train",
                "url": "http://127.0.0.1:8080/images/7372/58729990000_0cdaa299b9_m.jpg", "favorites": nil,
                "comments": nil,
            ])
    }

    @Test func aCellRestoredFromItsURLsEqualsTheOneItWasStoredFrom() {
        var cell = PhotoCell(photo)
        cell.favorites = 3
        var stored = PhotoCell(id: cell.id, title: cell.title, url: cell.url, thumbnailUrl: cell.thumbnailUrl)
        stored.favorites = 3
        #expect(stored == cell)
        #expect(stored.json == cell.json)
        stored.comments = 1
        #expect(stored != cell)
        let elsewhere = PhotoCell(id: cell.id, title: cell.title, url: cell.url, thumbnailUrl: "http://other/s.jpg")
        #expect(elsewhere != PhotoCell(photo))
    }
}
