import JSON
import Services

/// The results of one search text, all pages loaded so far.
public struct SearchResults: Sendable, Equatable {
    public var searchString: String
    public var totalResults: Int
    public var page: Int
    public var pages: Int
    public var photos: [PhotoCell]

    /// Creates results.
    public init(searchString: String, totalResults: Int, page: Int, pages: Int, photos: [PhotoCell]) {
        self.searchString = searchString
        self.totalResults = totalResults
        self.page = page
        self.pages = pages
        self.photos = photos
    }

    var json: JSONValue {
        [
            "searchString": .string(searchString), "totalResults": .int(totalResults), "page": .int(page),
            "pages": .int(pages), "photos": .array(photos.map(\.json)),
        ]
    }
}

/// Which page of which text is being loaded.
public struct SearchRequest: Sendable, Equatable {
    /// The trimmed search text.
    public var text: String
    /// The page (1 for a new search, more for load-more).
    public var page: Int

    /// Creates a request.
    public init(text: String, page: Int) {
        self.text = text
        self.page = page
    }
}

/// A successful search, remembered for the recent-searches list.
public struct RecentSearch: Sendable, Equatable {
    public var searchString: String
    public var totalResults: Int
    public var thumbnailUrl: String?

    /// Creates an entry.
    public init(searchString: String, totalResults: Int, thumbnailUrl: String?) {
        self.searchString = searchString
        self.totalResults = totalResults
        self.thumbnailUrl = thumbnailUrl
    }

    var json: JSONValue {
        [
            "searchString": .string(searchString), "totalResults": .int(totalResults),
            "thumbnailUrl": thumbnailUrl.map { .string($0) } ?? .null,
        ]
    }
}

/// The whole state of the Flickr search screen.
public struct SearchState: ViewModelState {
    /// The screen title.
    public static let title = "Flickr Search"
    /// At most this many recent searches are kept.
    public static let recentSearchLimit = 10

    /// The text in the search field, as typed.
    public var searchText: String
    /// The results, loading state and failure as one value.
    ///
    /// NB: copy on write: the state is copied several times per command and the results rarely change
    /// (docs/performance.md, "Receipts").
    @CopyOnWrite public var results: Loadable<SearchResults, SearchRequest>
    /// Successful searches, most recent first, unique by text.
    public var recentSearches: [RecentSearch]
    /// The most recent failure; cleared by the next successful load.
    public var lastError: UpstreamError?

    /// Creates a state; the default is the empty screen.
    public init(
        searchText: String = "", results: Loadable<SearchResults, SearchRequest> = .idle,
        recentSearches: [RecentSearch] = [], lastError: UpstreamError? = nil
    ) {
        self.searchText = searchText
        self.results = results
        self.recentSearches = recentSearches
        self.lastError = lastError
    }

    /// The text a search would use: `searchText` without surrounding white space.
    public var trimmedText: String { Self.trim(searchText) }

    /// Search is enabled exactly when the trimmed text has more than 3 characters.
    public var canSearch: Bool { Self.trimmedCount(searchText) > 3 }

    /// Whether a search (any page) is in flight.
    /// NB: a `switch` over every case, binding nothing, on the results read in their box (`_results.wrappedValue`;
    /// `results` returns a copy): both are asked of the two states compared at every change (docs/performance.md,
    /// "Receipts").
    public var isSearching: Bool {
        switch _results.wrappedValue {
        case .loading: true
        case .idle, .loaded, .failed: false
        }
    }

    /// Whether `other` has the same results (one pointer compared when they share their box).
    func hasSameResults(as other: SearchState) -> Bool {
        _results == other._results
    }

    /// Writes the journal's extras of the results' load (``Loadable/writeExtras(to:request:)``). NB: read in
    /// place, like ``isSearching``: the journal writes them on every change.
    func writeResultsExtras(to json: inout JSONTextWriter) {
        _results.wrappedValue.writeExtras(to: &json) { $0.writeSnapshot(to: &$1) }
    }

    /// Whether load-more is enabled: results shown, more pages, nothing in flight.
    /// NB: read in place, like ``isSearching``.
    public var canLoadMore: Bool {
        switch _results.wrappedValue {
        case .loaded(let value): value.page < value.pages
        case .failed(_, let previous?): previous.page < previous.pages
        case .idle, .loading, .failed(_, nil): false
        }
    }

    /// The API's SearchState (without `version`, which the state channel adds).
    public static let jsonMembers: [StateMember<SearchState>] = [
        StateMember("title", { _ in title }, json: { .string($0) }),
        StateMember("searchText", { $0.searchText }, json: { .string($0) }),
        StateMember("canSearch", { $0.canSearch }, json: { .bool($0) }),
        StateMember("isSearching", { $0.isSearching }, json: { .bool($0) }),
        StateMember("results", differs: { $0._results != $1._results }, json: { $0.results.json { $0.json } }),
        StateMember("canLoadMore", { $0.canLoadMore }, json: { .bool($0) }),
        StateMember(
            "recentSearches", differs: { $0.recentSearches != $1.recentSearches },
            json: { .array($0.recentSearches.map(\.json)) }),
        StateMember("lastError", { $0.lastError }, json: { $0?.json ?? .null }),
    ]

    static func trim(_ text: String) -> String {
        if let trimmed = trimASCIIEdges(text) { return trimmed }
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

    /// The number of characters of `trim(text)`: counted on the bytes for ASCII text (a CR LF pair is one
    /// character), without building the trimmed text; `canSearch` is asked on every change of the state.
    static func trimmedCount(_ text: String) -> Int {
        let counted: Int?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            let range = asciiTrimmed(bytes)
            var count = 0
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                guard byte < 0x80 else { return nil }
                index += byte == 0x0D && index + 1 < range.upperBound && bytes[index + 1] == 0x0A ? 2 : 1
                count += 1
            }
            return count
        }
        return (counted ?? nil) ?? trim(text).count
    }

    /// `trim` on the bytes, when that is exact: the white space at both ends is ASCII and the text left starts and
    /// ends with an ASCII byte (so no grapheme cluster spans a cut); nil otherwise. `Character.isWhitespace` looks up
    /// Unicode properties, and `canSearch` trims on every change of the state.
    static func trimASCIIEdges(_ text: String) -> String? {
        let result: String?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            let range = asciiTrimmed(bytes)
            if range.isEmpty { return "" }
            guard bytes[range.lowerBound] < 0x80, bytes[range.upperBound - 1] < 0x80 else { return nil }
            if range.count == bytes.count { return text }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        return result ?? nil
    }

    /// `bytes` without ASCII white space (tab to carriage return, space) at either end.
    private static func asciiTrimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return start..<end
    }
}
