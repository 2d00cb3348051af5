import JSON
import Services

// The journal form of the search screen's state: everything `json` shows and what it leaves out (the
// thumbnail of each photo, the request of a search in flight).

extension PhotoCell {
    var snapshot: JSONValue {
        [
            "id": .string(id), "title": .string(title), "url": .string(url), "thumbnailUrl": .string(thumbnailUrl),
            "favorites": favorites.map { .int($0) } ?? .null, "comments": comments.map { .int($0) } ?? .null,
        ]
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
    var snapshot: JSONValue {
        [
            "searchString": .string(searchString), "totalResults": .int(totalResults), "page": .int(page),
            "pages": .int(pages), "photos": .array(photos.map(\.snapshot)),
        ]
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
    var snapshot: JSONValue { ["text": .string(text), "page": .int(page)] }

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
    var snapshot: JSONValue { snapshot(value: \.snapshot, request: \.snapshot) }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        try self.init(
            snapshot: reader, value: { (r) throws(SnapshotError) in try SearchResults(snapshot: r) },
            request: { (r) throws(SnapshotError) in try SearchRequest(snapshot: r) }
        )
    }
}

extension SearchState {
    var snapshot: JSONValue {
        [
            "searchText": .string(searchText), "results": results.snapshot,
            "recentSearches": .array(recentSearches.map(\.json)), "lastError": lastError?.json ?? .null,
        ]
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
