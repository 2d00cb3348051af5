import EventLoop
import Services
import Testing
import VMHostTesting

@testable import ViewModels

@LoopActor
@Suite("SearchViewModel")
struct SearchViewModelTests {
    let service = FakeFlickrService()
    let clock = TestClock()
    let viewModel: SearchViewModel

    init() {
        viewModel = SearchViewModel(service: service, clock: clock.clock)
    }

    func results(_ text: String, pages: [Int], pageCount: Int = 3) -> SearchResults {
        let photos = pages.flatMap { photoPage(text: text, page: $0, pages: pageCount).photos.map(PhotoCell.init) }
        return SearchResults(
            searchString: text, totalResults: 150, page: pages.last ?? 0, pages: pageCount, photos: photos)
    }

    func recent(_ text: String) -> RecentSearch {
        RecentSearch(
            searchString: text, totalResults: 150,
            thumbnailUrl: "https://live.staticflickr.com/65535/\(text)-1-0_abcdef1234_s.jpg"
        )
    }

    @Test func initialState() {
        #expect(viewModel.state == SearchState())
        #expect(viewModel.state.json["title"] == "Flickr Search")
        #expect(viewModel.state.json["results"] == ["status": "idle", "value": nil, "error": nil])
        #expect(viewModel.state.canSearch == false)
        #expect(viewModel.state.canLoadMore == false)
    }

    @Test(arguments: [
        ("", false), ("cat", false), ("  cat  ", false), ("cats", true), ("  cats ", true), ("a b ", false),
        ("a  b", true), ("\tdogs\n", true),
    ])
    func canSearchNeedsMoreThanThreeTrimmedCharacters(text: String, expected: Bool) throws {
        viewModel.setText(text)
        #expect(viewModel.state == SearchState(searchText: text))
        #expect(viewModel.state.canSearch == expected)
        if !expected {
            #expect(throws: CommandDisabled.self) { try viewModel.execute() }
            #expect(service.calls.isEmpty)
        }
    }

    @Test func executeSearchesTrimmedTextAndRemembersIt() async throws {
        viewModel.setText(" kittens ")
        try viewModel.execute()
        #expect(
            viewModel.state
                == SearchState(
                    searchText: " kittens ", results: .loading(SearchRequest(text: "kittens", page: 1), previous: nil)))
        #expect(viewModel.state.isSearching)

        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        #expect(
            viewModel.state
                == SearchState(
                    searchText: " kittens ", results: .loaded(results("kittens", pages: [1])),
                    recentSearches: [recent("kittens")]
                ))
        #expect(viewModel.state.canLoadMore)
        #expect(
            viewModel.state.json["results"]?["value"]?["photos"]?[0] == [
                "id": "kittens-1-0", "title": "kittens 0",
                "url": "https://live.staticflickr.com/65535/kittens-1-0_abcdef1234_m.jpg", "favorites": nil,
                "comments": nil,
            ])
    }

    @Test func debounceRunsOneSearchAfterSeveralQuickEdits() async {
        for text in ["k", "ki", "kit", "kitt", "kitte", "kitten"] {
            viewModel.setText(text, autoSearch: true)
            await settle()
            clock.advance(by: .milliseconds(100))
            await settle()
        }
        #expect(service.calls.isEmpty, "no search while typing")
        #expect(viewModel.state == SearchState(searchText: "kitten"))

        clock.advance(by: .milliseconds(199))
        await settle()
        #expect(service.calls.isEmpty)
        clock.advance(by: .milliseconds(1))
        await settle()
        #expect(service.calls == [.search("kitten", 1)])
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "kitten", results: .loading(SearchRequest(text: "kitten", page: 1), previous: nil)))
    }

    @Test func debounceSkipsTextThatCannotSearch() async {
        viewModel.setText("cat", autoSearch: true)
        await settle()
        clock.advance(by: .seconds(1))
        await settle()
        #expect(service.calls.isEmpty)
        #expect(viewModel.isBusy == false)
    }

    @Test func textWithoutAutoSearchDropsThePendingAutomaticSearch() async {
        viewModel.setText("kittens", autoSearch: true)
        await settle()
        viewModel.setText("kittens!")
        clock.advance(by: .seconds(1))
        await settle()
        #expect(service.calls.isEmpty)
        #expect(clock.sleeperCount == 0)
    }

    @Test func latestWinsAndCancelsTheSearchInFlight() async throws {
        try viewModel.execute(text: "kittens")
        await settle()
        try viewModel.execute(text: "puppies")
        await settle()
        #expect(service.cancelled == [.search("kittens", 1)], "the first search was cancelled upstream")
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loading(SearchRequest(text: "puppies", page: 1), previous: nil)))

        await service.answer(.search("puppies", 1), with: .success(.page(photoPage(text: "puppies", page: 1))))
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loaded(results("puppies", pages: [1])),
                    recentSearches: [recent("puppies")]
                ))
    }

    @Test func cancelRestoresThePreviousResultsWithoutError() async throws {
        try viewModel.execute(text: "kittens")
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        try viewModel.execute(text: "puppies")
        await settle()
        #expect(
            viewModel.state.results
                == .loading(SearchRequest(text: "puppies", page: 1), previous: results("kittens", pages: [1])))

        viewModel.cancel()
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loaded(results("kittens", pages: [1])),
                    recentSearches: [recent("kittens")],
                    lastError: nil
                ))
        await settle()
        #expect(service.cancelled == [.search("puppies", 1)])
        #expect(!viewModel.state.isSearching)
    }

    @Test func loadMoreAppendsPagesUntilTheLast() async throws {
        try viewModel.execute(text: "kittens")
        await service.answer(
            .search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1, pages: 2))))
        try viewModel.loadMore()
        #expect(
            viewModel.state.results
                == .loading(
                    SearchRequest(text: "kittens", page: 2), previous: results("kittens", pages: [1], pageCount: 2)))
        #expect(throws: CommandDisabled("a search is in progress")) { try viewModel.loadMore() }

        await service.answer(
            .search("kittens", 2), with: .success(.page(photoPage(text: "kittens", page: 2, pages: 2))))
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "kittens", results: .loaded(results("kittens", pages: [1, 2], pageCount: 2)),
                    recentSearches: [
                        RecentSearch(
                            searchString: "kittens", totalResults: 150, thumbnailUrl: recent("kittens").thumbnailUrl)
                    ]
                ))
        #expect(viewModel.state.canLoadMore == false)
        #expect(throws: CommandDisabled("all 2 pages are loaded")) { try viewModel.loadMore() }
    }

    @Test func loadMoreBeforeAnyResultsIsDisabled() {
        #expect(throws: CommandDisabled("there are no results to extend")) { try viewModel.loadMore() }
    }

    @Test(arguments: [
        UpstreamError(kind: .network, message: "timed out"),
        UpstreamError(kind: .upstream, message: "flickr answered HTTP 429", status: 429),
        UpstreamError(kind: .business, message: "Invalid API Key (Key has invalid format)", code: 100),
        UpstreamError(kind: .decoding, message: "flickr sent a response that could not be read"),
    ])
    func everyErrorKindKeepsThePreviousResults(error: UpstreamError) async throws {
        try viewModel.execute(text: "kittens")
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        let kept = results("kittens", pages: [1])

        try viewModel.execute(text: "puppies")
        await service.answer(.search("puppies", 1), with: .failure(error))
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .failed(error, previous: kept), recentSearches: [recent("kittens")],
                    lastError: error
                ))
        #expect(viewModel.state.json["results"]?["status"] == "failed")
        #expect(viewModel.state.json["results"]?["error"] == error.json)

        try viewModel.loadMore()
        await service.answer(.search("kittens", 2), with: .failure(error))
        #expect(viewModel.state.results == .failed(error, previous: kept))

        try viewModel.execute(text: "puppies")
        await service.answer(.search("puppies", 1), with: .success(.page(photoPage(text: "puppies", page: 1))))
        #expect(viewModel.state.lastError == nil, "the next success clears lastError")
        #expect(viewModel.state.recentSearches == [recent("puppies"), recent("kittens")])
    }

    @Test func recentSearchesAreUniqueMostRecentFirstAndAtMostTen() async throws {
        for index in 0..<12 {
            try viewModel.execute(text: "search \(index)")
            await service.answer(
                .search("search \(index)", 1), with: .success(.page(photoPage(text: "search \(index)", page: 1))))
        }
        try viewModel.execute(text: "search 5")
        await service.answer(.search("search 5", 1), with: .success(.page(photoPage(text: "search 5", page: 1))))
        #expect(
            viewModel.state.recentSearches.map(\.searchString) == [
                "search 5", "search 11", "search 10", "search 9", "search 8", "search 7", "search 6", "search 4",
                "search 3", "search 2",
            ])
    }

    @Test func visiblePhotosLoadMetadataOnceAFewAtATime() async throws {
        try viewModel.execute(text: "kittens")
        let page = photoPage(text: "kittens", page: 1, count: 6)
        await service.answer(.search("kittens", 1), with: .success(.page(page)))
        let ids = page.photos.map(\.id)

        viewModel.visible(ids)
        await settle()
        let firstFour = ids.prefix(4).flatMap { [FakeFlickrService.Call.favorites($0), .comments($0)] }
        #expect(Set(service.pendingCalls) == Set(firstFour), "four photos at a time")
        #expect(service.pendingCalls.count == 8)

        await service.answer(.favorites(ids[0]), with: .success(.count(7)))
        await service.answer(.comments(ids[0]), with: .success(.count(2)))
        #expect(viewModel.state.results.value?.photos[0].favorites == 7)
        #expect(viewModel.state.results.value?.photos[0].comments == 2)
        #expect(service.pendingCalls.contains(.favorites(ids[4])), "the next photo started")

        // Scrolling: photos 1 and 2 leave the screen; their loads go on (the upstream calls are made anyway, and
        // a scrolling loop must not start them again and again). Photo 0 is not loaded again.
        let callsBefore = service.calls.count
        viewModel.visible([ids[0], ids[3], ids[4], ids[5]])
        await settle()
        #expect(service.cancelled.isEmpty)
        #expect(!service.calls[callsBefore...].contains(.favorites(ids[0])))
        #expect(!service.pendingCalls.contains(.favorites(ids[5])), "at most four at a time")

        // Photo 1's load finishes while it is off screen; it is shown when it comes back, never loaded again.
        await service.answer(.favorites(ids[1]), with: .success(.count(5)))
        await service.answer(.comments(ids[1]), with: .success(.count(1)))
        #expect(service.pendingCalls.contains(.favorites(ids[5])), "the next photo started")
        for id in [ids[2], ids[3], ids[4], ids[5]] {
            await service.answer(.favorites(id), with: .success(.count(1)))
            await service.answer(.comments(id), with: .success(.count(0)))
        }
        let callsAfter = service.calls.count
        viewModel.visible([ids[1]])
        viewModel.visible([])
        viewModel.visible([ids[1], ids[2]])
        await settle()
        #expect(service.calls.count == callsAfter, "every photo was loaded once")
        #expect(viewModel.state.results.value?.photos.map(\.comments) == [2, 1, 0, 0, 0, 0])
    }

    @Test func aPhotoWhoseMetadataFailedIsNotLoadedAgainForTheseResults() async throws {
        try viewModel.execute(text: "kittens")
        let page = photoPage(text: "kittens", page: 1, count: 1)
        await service.answer(.search("kittens", 1), with: .success(.page(page)))
        let photo = page.photos[0].id
        viewModel.visible([photo])
        await settle()
        // NB: the comments call is cancelled with the failed favorites call (one load of the pair).
        await service.answer(.favorites(photo), with: .failure(UpstreamError(kind: .network, message: "reset")))
        let calls = service.calls.count
        for _ in 0..<5 { viewModel.visible([photo]) }
        await settle()
        #expect(service.calls.count == calls)
    }

    @Test func waitUntilIdleCoversTheDebounceAndTheSearch() async {
        viewModel.setText("kittens", autoSearch: true)
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state.results.value?.searchString
        }
        await settle()
        clock.advance(by: .milliseconds(300))
        await settle()
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        #expect(await waiter.value == "kittens")
    }
}
