import JSON
import Services

// The journal form of the search screen's state: everything `json` shows and what it leaves out (the
// thumbnail of each photo, the request of a search in flight).

extension PhotoCell {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("id")
        json.string(id)
        json.key("title")
        json.string(title)
        json.key("url")
        json.string(url)
        json.key("thumbnailUrl")
        json.string(thumbnailUrl)
        json.key("favorites")
        json.int(favorites)
        json.key("comments")
        json.int(comments)
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            id: try reader.string("id"), title: try reader.string("title"), url: try reader.string("url"),
            thumbnailUrl: try reader.string("thumbnailUrl")
        )
        favorites = try reader.optionalInt("favorites")
        comments = try reader.optionalInt("comments")
    }
}

extension SearchResults {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("searchString")
        json.string(searchString)
        json.key("totalResults")
        json.int(totalResults)
        json.key("page")
        json.int(page)
        json.key("pages")
        json.int(pages)
        json.key("photos")
        json.openArray()
        for photo in photos { photo.writeSnapshot(to: &json) }
        json.closeArray()
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            searchString: try reader.string("searchString"), totalResults: try reader.int("totalResults"),
            page: try reader.int("page"), pages: try reader.int("pages"),
            photos: try reader.array("photos") { (cell) throws(SnapshotError) in try PhotoCell(snapshot: cell) }
        )
    }
}

extension SearchRequest {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("text")
        json.string(text)
        json.key("page")
        json.int(page)
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(text: try reader.string("text"), page: try reader.int("page"))
    }
}

extension RecentSearch {
    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            searchString: try reader.string("searchString"), totalResults: try reader.int("totalResults"),
            thumbnailUrl: try reader.optionalString("thumbnailUrl")
        )
    }
}

extension Loadable where Value == SearchResults, Request == SearchRequest {
    func writeSnapshot(to json: inout JSONTextWriter) {
        writeSnapshot(to: &json, value: { $0.writeSnapshot(to: &$1) }, request: { $0.writeSnapshot(to: &$1) })
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        try self.init(
            snapshot: reader, value: { (r) throws(SnapshotError) in try SearchResults(snapshot: r) },
            request: { (r) throws(SnapshotError) in try SearchRequest(snapshot: r) }
        )
    }
}

extension SearchState {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("searchText")
        json.string(searchText)
        json.key("results")
        results.writeSnapshot(to: &json)
        json.key("recentSearches")
        json.openArray()
        for search in recentSearches { json.value(search.json) }
        json.closeArray()
        json.key("lastError")
        if let lastError { json.value(lastError.json) } else { json.null() }
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            searchText: try reader.string("searchText"),
            results: try Loadable(snapshot: reader.object("results")),
            recentSearches: try reader.array("recentSearches") { (r) throws(SnapshotError) in
                try RecentSearch(snapshot: r)
            },
            lastError: try reader.optionalError("lastError")
        )
    }
}

// The journal's extras of the search screen (what its JSON leaves out: the status, failure and request of the
// results' load) and the snapshot rebuilt from the JSON and the extras.

extension SearchResults {
    /// The snapshot form of results whose API JSON is `value`: the photos get their thumbnails back.
    static func snapshot(json value: JSONValue) throws(SnapshotError) -> JSONValue {
        guard var members = value.objectValue, let photos = members["photos"]?.arrayValue else {
            throw SnapshotError("results.value has no photos")
        }
        var cells: [JSONValue] = []
        cells.reserveCapacity(photos.count)
        for photo in photos {
            guard var cell = photo.objectValue, let url = cell["url"]?.stringValue else {
                throw SnapshotError("a photo of results.value has no url")
            }
            cell["thumbnailUrl"] = .string(PhotoCell.thumbnailURL(forImageURL: url))
            cells.append(.object(cell))
        }
        members["photos"] = .array(cells)
        return .object(members)
    }
}

extension SearchState {
    /// The snapshot form (``writeSnapshot(to:)``'s JSON) of the state whose API JSON is `json`, with the results'
    /// extras `resultsExtras`.
    static func snapshot(json: SnapshotReader, resultsExtras: JSONValue) throws(SnapshotError) -> JSONValue {
        let results = try json.object("results")
        let value = results.value("value")
        return [
            "searchText": .string(try json.string("searchText")),
            "results": try Loadable<SearchResults, SearchRequest>.snapshot(
                extras: resultsExtras, value: value.isNull ? nil : try SearchResults.snapshot(json: value)),
            "recentSearches": json.value("recentSearches"),
            "lastError": json.value("lastError"),
        ]
    }
}
