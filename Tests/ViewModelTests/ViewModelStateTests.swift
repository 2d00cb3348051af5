import JSON
import JSONPatch
import Services
import Testing
import VMHostTesting

@testable import ViewModels

/// The host diffs a view model's typed state member by member instead of diffing two JSON trees: for every pair
/// of states the two must give the same patch.
@Suite("View model state members")
struct ViewModelStateTests {
    /// Checks every ordered pair of `states`: same operations as the JSON diff, no change exactly when the JSON is
    /// equal, and the members in the JSON's order.
    func checkPairs<State: ViewModelState>(_ states: [State]) async {
        for (oldIndex, old) in states.enumerated() {
            #expect(old.json.objectValue?.keys == State.jsonMembers.map(\.key))
            for (newIndex, new) in states.enumerated() {
                await sharePool(every: 1, at: newIndex)
                let changes = new.changedMembers(from: old)
                let operations = JSONPatch.diff(changedMembers: changes.members) { new.json }
                let expected = JSONPatch.diff(from: old.json, to: new.json)
                #expect(operations == expected, "\(State.self) \(oldIndex) → \(newIndex)")
                #expect(changes.indexes.isEmpty == (old.json == new.json), "\(State.self) \(oldIndex) → \(newIndex)")

                // The text kept for `old`, with the changed members forgotten, is the text of `new`.
                var text = StateText<State>()
                var bytes: [UInt8] = []
                text.serialize(old, first: ("version", 1), into: &bytes, keeping: true)
                #expect(bytes == versioned(old, 1))
                for index in changes.indexes { text.invalidate(index) }
                for (version, keeping) in [(2, true), (3, true), (4, false), (5, true)] {
                    bytes = []
                    text.serialize(new, first: ("version", .int(version)), into: &bytes, keeping: keeping)
                    #expect(bytes == versioned(new, version), "\(State.self) \(oldIndex) → \(newIndex)")
                }
            }
        }
    }

    /// The JSON text of `state` with `version` first.
    func versioned<State: ViewModelState>(_ state: State, _ version: Int) -> [UInt8] {
        var object: JSONObject = ["version": .int(version)]
        for member in state.json.objectValue ?? [:] { object[member.key] = member.value }
        return JSONValue.object(object).serializedBytes
    }

    func photos(_ range: Range<Int>, metadata: Bool = false) -> [PhotoCell] {
        range.map { index in
            var cell = PhotoCell(
                id: "\(5_000 + index)", title: "Photo \(index)", url: "http://127.0.0.1/\(index)_m.jpg",
                thumbnailUrl: "http://127.0.0.1/\(index)_s.jpg")
            if metadata {
                cell.favorites = index
                cell.comments = index * 2
            }
            return cell
        }
    }

    @Test func searchStates() async {
        let failure = UpstreamError(kind: .network, message: "timed out")
        let page1 = SearchResults(searchString: "kittens", totalResults: 90, page: 1, pages: 3, photos: photos(0..<30))
        var page2 = page1
        page2.page = 2
        page2.photos += photos(30..<60)
        var withMetadata = page2
        withMetadata.photos = photos(0..<30, metadata: true) + photos(30..<60)
        let other = SearchResults(searchString: "sunset", totalResults: 12, page: 1, pages: 1, photos: photos(70..<82))
        let recent = [RecentSearch(searchString: "kittens", totalResults: 90, thumbnailUrl: "http://127.0.0.1/0_s.jpg")]
        await checkPairs([
            SearchState(),
            SearchState(searchText: "kit"),
            SearchState(
                searchText: "kittens", results: .loading(SearchRequest(text: "kittens", page: 1), previous: nil)),
            SearchState(searchText: "kittens", results: .loaded(page1), recentSearches: recent),
            SearchState(
                searchText: "kittens", results: .loading(SearchRequest(text: "kittens", page: 2), previous: page1),
                recentSearches: recent),
            SearchState(searchText: "kittens", results: .loaded(page2), recentSearches: recent),
            SearchState(searchText: "kittens", results: .loaded(withMetadata), recentSearches: recent),
            SearchState(
                searchText: "sunset ", results: .failed(failure, previous: page2), recentSearches: recent,
                lastError: failure),
            SearchState(searchText: "sunset", results: .loaded(other), recentSearches: recent),
        ])
    }

    /// The results member says the results differ exactly when they are not equal: for every pair of cases, and
    /// of payloads within a case.
    @Test func theResultsMemberDiffersExactlyWhenTheResultsDo() throws {
        let page1 = SearchResults(searchString: "kittens", totalResults: 90, page: 1, pages: 3, photos: photos(0..<3))
        var page2 = page1
        page2.page = 2
        let timedOut = UpstreamError(kind: .network, message: "timed out")
        let refused = UpstreamError(kind: .network, message: "refused")
        let first = SearchRequest(text: "kittens", page: 1)
        let second = SearchRequest(text: "kittens", page: 2)
        let results: [Loadable<SearchResults, SearchRequest>] = [
            .idle, .loading(first, previous: nil), .loading(first, previous: page1), .loading(second, previous: page1),
            .loaded(page1), .loaded(page2), .failed(timedOut, previous: nil), .failed(timedOut, previous: page1),
            .failed(refused, previous: page1),
        ]
        let member = try #require(SearchState.jsonMembers.first { $0.key == "results" })
        for old in results {
            for new in results {
                let same = !member.differs(SearchState(results: old), SearchState(results: new))
                #expect(same == (old == new), "\(old) → \(new)")
            }
        }
    }

    /// `SearchState` keeps its results in a shared box (`CopyOnWrite`): copies must still behave as independent
    /// values.
    @Test func searchStateCopiesAreIndependentValues() {
        let page1 = SearchResults(searchString: "kittens", totalResults: 90, page: 1, pages: 3, photos: photos(0..<3))
        let recent = RecentSearch(searchString: "kittens", totalResults: 90, thumbnailUrl: nil)
        var state = SearchState(searchText: "kittens", results: .loaded(page1), recentSearches: [recent])
        let copy = state
        #expect(copy == state)

        state.searchText += "!"
        state.recentSearches.append(recent)
        state.results = .idle
        state.lastError = UpstreamError(kind: .network, message: "timed out")
        #expect(copy.searchText == "kittens")
        #expect(copy.recentSearches == [recent])
        #expect(copy.results == .loaded(page1))
        #expect(copy.lastError == nil)
        #expect(state.searchText == "kittens!")
        #expect(state.recentSearches == [recent, recent])
        #expect(copy != state)

        // Equal fields in separate boxes are equal states.
        var rebuilt = SearchState(searchText: "kittens!", recentSearches: [recent, recent])
        rebuilt.lastError = state.lastError
        #expect(rebuilt == state)
    }

    /// `canLoadMore` over every kind of results.
    @Test func searchCanLoadMore() {
        let more = SearchResults(searchString: "kittens", totalResults: 90, page: 1, pages: 3, photos: [])
        let last = SearchResults(searchString: "kittens", totalResults: 90, page: 3, pages: 3, photos: [])
        let failure = UpstreamError(kind: .network, message: "timed out")
        let request = SearchRequest(text: "kittens", page: 2)
        let cases: [(Loadable<SearchResults, SearchRequest>, Bool)] = [
            (.idle, false), (.loaded(more), true), (.loaded(last), false), (.loading(request, previous: more), false),
            (.loading(request, previous: nil), false), (.failed(failure, previous: more), true),
            (.failed(failure, previous: last), false), (.failed(failure, previous: nil), false),
        ]
        for (results, expected) in cases {
            #expect(SearchState(searchText: "kittens", results: results).canLoadMore == expected, "\(results)")
        }
    }

    @Test func productListStates() async {
        let items = (0..<40).map { index in
            Product(
                id: "p-\(index)", title: "Product \(index)", subtitle: "Bank", price: "\(index),00.00", badge: "New",
                detail: "\(index) days", imageUrl: index.isMultiple(of: 3) ? nil : "http://127.0.0.1/\(index).png")
        }
        let page1 = ProductPage(items: Array(items[0..<20]), page: 1, hasMore: true)
        let both = ProductPage(items: items, page: 2, hasMore: false)
        let failure = UpstreamError(kind: .upstream, message: "product API answered HTTP 500", status: 500)
        await checkPairs([
            ProductListState(),
            ProductListState(list: .loading(.refresh, previous: nil)),
            ProductListState(list: .loaded(page1)),
            ProductListState(list: .loading(.nextPage(2), previous: page1)),
            ProductListState(list: .loaded(both)),
            ProductListState(list: .failed(failure, previous: page1), lastError: failure),
            ProductListState(list: .loading(.refresh, previous: both), lastError: failure),
        ])
    }

    @Test func photoStates() async {
        let failure = UpstreamError(kind: .business, message: "Photo not found", code: 1)
        await checkPairs([
            PhotoState(),
            PhotoState(photoId: "42", detail: .loading("42", previous: nil), comments: .loading("42", previous: nil)),
            PhotoState(photoId: "42", detail: .loaded(photoDetail("42")), comments: .loading("42", previous: nil)),
            PhotoState(photoId: "42", detail: .loaded(photoDetail("42")), comments: .loaded(photoComments("42"))),
            PhotoState(
                photoId: "43", detail: .failed(failure, previous: nil), comments: .loaded([]), lastError: failure),
        ])
    }

    /// The byte-level trim agrees with trimming `Character`s wherever it answers, including white space that is
    /// not ASCII, combining marks after a space, CR LF and prepended marks (which join the next character).
    @Test func trimmingOnBytesAgreesWithTrimmingCharacters() {
        let pieces = [
            "\r", "b\r\nc",
            " ", "\t", "\n", "\r\n", "\u{0B}", "a", "Z", "7", "é", "e\u{301}", "\u{301}", "\u{A0}", "\u{3000}",
            "\u{600}", "🐱", "\u{85}",
        ]
        var generator = SplitMix64(seed: 0x7215)
        var answered = 0
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                pieces.randomElement(using: &generator) ?? " "
            }.joined()
            var slice = Substring(text)
            while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
            while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
            #expect(SearchState.trim(text) == String(slice), "\(Array(text.unicodeScalars))")
            #expect(SearchState.trimmedCount(text) == slice.count, "\(Array(text.unicodeScalars))")
            if let fast = SearchState.trimASCIIEdges(text) {
                answered += 1
                #expect(fast == String(slice), "\(Array(text.unicodeScalars))")
            }
        }
        #expect(answered > 1000)
    }
}
