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
    let store: ViewModelTestStore<SearchViewModel>

    init() {
        viewModel = SearchViewModel(service: service, clock: clock.clock)
        store = ViewModelTestStore(viewModel, clock: clock, service: service)
    }

    func results(_ text: String, pages: [Int], pageCount: Int = 3, count: Int = 3) -> SearchResults {
        let photos = pages.flatMap {
            photoPage(text: text, page: $0, pages: pageCount, count: count).photos.map(PhotoCell.init)
        }
        return SearchResults(
            searchString: text, totalResults: 150, page: pages.last ?? 0, pages: pageCount, photos: photos)
    }

    func recent(_ text: String) -> RecentSearch {
        RecentSearch(
            searchString: text, totalResults: 150,
            thumbnailUrl: "https://live.staticflickr.com/65535/\(text)-1-0_abcdef1234_s.jpg"
        )
    }

    /// Sends `execute(text:)`: the text changes (unless it is the text already), then page 1 of it starts loading
    /// with `previous` shown meanwhile.
    func execute(
        _ text: String, previous: SearchResults? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let loading = Loadable<SearchResults, SearchRequest>.loading(
            SearchRequest(text: text, page: 1), previous: previous)
        if store.state.searchText == text {
            try await store.send(
                { try viewModel.execute(text: text) }, { $0.results = loading }, sourceLocation: sourceLocation)
        } else {
            try await store.send(
                { try viewModel.execute(text: text) }, { $0.searchText = text }, sourceLocation: sourceLocation)
            store.receive({ $0.results = loading }, sourceLocation: sourceLocation)
        }
    }

    /// Answers the search of page `page` of `text` with a page of `count` photos of `pages`.
    func answerSearch(_ text: String, page: Int = 1, pages: Int = 3, count: Int = 3) async {
        await service.answer(
            .search(text, page), with: .success(.page(photoPage(text: text, page: page, pages: pages, count: count))))
    }

    /// Runs a first search of `text` and answers its page 1 (of `pages`, with `count` photos): the results are
    /// loaded and `text` is the only recent search. Returns the results shown.
    @discardableResult
    func searchAndShow(
        _ text: String, pages: Int = 3, count: Int = 3, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> SearchResults {
        try await execute(text, sourceLocation: sourceLocation)
        let shown = results(text, pages: [1], pageCount: pages, count: count)
        await store.send(
            { await answerSearch(text, pages: pages, count: count) },
            {
                $0.results = .loaded(shown)
                $0.recentSearches = [recent(text)]
            }, sourceLocation: sourceLocation)
        return shown
    }

    @Test func initialState() {
        #expect(viewModel.state == SearchState())
        #expect(viewModel.state.json["title"] == "Flickr Search")
        #expect(viewModel.state.json["results"] == ["status": "idle", "value": nil, "error": nil])
        #expect(viewModel.state.canSearch == false)
        #expect(viewModel.state.canLoadMore == false)
    }

    /// The store itself: a change left for the next command, a sleeper on the test clock, or an upstream call not
    /// answered fails the test.
    @Test func theTestStoreFailsOnUnassertedChangesSleepersAndUnansweredCalls() async throws {
        try viewModel.execute(text: "kittens")
        await withKnownIssue("two changes were not asserted before the next command") {
            await store.sendWithoutChange { viewModel.cancel() }
        }
        await store.send({ viewModel.setText("puppies", autoSearch: true) }) { $0.searchText = "puppies" }
        await withKnownIssue("the debounce sleeps on the clock") { await store.finish() }
        await store.advance(by: SearchViewModel.debounceInterval) {
            $0.results = .loading(SearchRequest(text: "puppies", page: 1), previous: nil)
        }
        viewModel.cancel()
        await withKnownIssue("the cancel's change was not asserted") { await store.finish() }
        store.receive { $0.results = .idle }
        try await execute("puppies")
        await withKnownIssue("the search still waits for its answer") { await store.finish() }
        await store.send({ await answerSearch("puppies") }) {
            $0.results = .loaded(results("puppies", pages: [1]))
            $0.recentSearches = [recent("puppies")]
        }
        await store.finish()
    }

    @Test(arguments: [
        ("", false), ("cat", false), ("  cat  ", false), ("cats", true), ("  cats ", true), ("a b ", false),
        ("a  b", true), ("\tdogs\n", true),
    ])
    func canSearchNeedsMoreThanThreeTrimmedCharacters(text: String, expected: Bool) async throws {
        await store.send({ viewModel.setText(text) }) { $0.searchText = text }
        #expect(viewModel.state == SearchState(searchText: text))
        #expect(viewModel.state.canSearch == expected)
        if !expected {
            await store.sendWithoutChange {
                #expect(throws: CommandDisabled.self) { try viewModel.execute() }
            }
            #expect(service.calls.isEmpty)
        }
        await store.finish()
    }

    @Test func executeSearchesTrimmedTextAndRemembersIt() async throws {
        await store.send({ viewModel.setText(" kittens ") }) { $0.searchText = " kittens " }
        try await store.send({ try viewModel.execute() }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        #expect(
            viewModel.state
                == SearchState(
                    searchText: " kittens ", results: .loading(SearchRequest(text: "kittens", page: 1), previous: nil)))
        #expect(viewModel.state.isSearching)

        await store.send({ await answerSearch("kittens") }) {
            $0.results = .loaded(results("kittens", pages: [1]))
            $0.recentSearches = [recent("kittens")]
        }
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
        await store.finish()
    }

    @Test func debounceRunsOneSearchAfterSeveralQuickEdits() async {
        for text in ["k", "ki", "kit", "kitt", "kitte", "kitten"] {
            await store.send({ viewModel.setText(text, autoSearch: true) }) { $0.searchText = text }
            await store.advance(by: .milliseconds(100))
        }
        #expect(service.calls.isEmpty, "no search while typing")
        #expect(viewModel.state == SearchState(searchText: "kitten"))

        await store.advance(by: .milliseconds(199))
        #expect(service.calls.isEmpty)
        await store.advance(by: .milliseconds(1)) {
            $0.results = .loading(SearchRequest(text: "kitten", page: 1), previous: nil)
        }
        #expect(service.calls == [.search("kitten", 1)])
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "kitten", results: .loading(SearchRequest(text: "kitten", page: 1), previous: nil)))

        await store.send({ await answerSearch("kitten") }) {
            $0.results = .loaded(results("kitten", pages: [1]))
            $0.recentSearches = [recent("kitten")]
        }
        await store.finish()
    }

    /// Typing changes the state alone: the extras' revision stays, so the journal neither writes nor compares
    /// them. An automatic search pending, its start and its answer each move it (and the store checks at every
    /// step of every test that the extras never change under the same revision).
    @Test func typingKeepsTheExtrasRevisionAndEachLoadStepMovesIt() async {
        let start = viewModel.extrasRevision
        await store.send({ viewModel.setText("kit") }) { $0.searchText = "kit" }
        await store.send({ viewModel.setText("kitten") }) { $0.searchText = "kitten" }
        #expect(start != nil && viewModel.extrasRevision == start, "typing")
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        let pending = viewModel.extrasRevision
        #expect(pending != start, "an automatic search pending")
        await store.advance(by: SearchViewModel.debounceInterval) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        let loading = viewModel.extrasRevision
        #expect(loading != pending, "the search started")
        await store.send({ await answerSearch("kittens") }) {
            $0.results = .loaded(results("kittens", pages: [1]))
            $0.recentSearches = [recent("kittens")]
        }
        #expect(viewModel.extrasRevision != loading, "its answer")
        let loaded = viewModel.extrasRevision
        await store.send({ viewModel.setText("kittens and") }) { $0.searchText = "kittens and" }
        #expect(viewModel.extrasRevision == loaded, "typing over loaded results")
        await store.finish()
    }

    @Test func debounceSkipsTextThatCannotSearch() async {
        await store.send({ viewModel.setText("cat", autoSearch: true) }) { $0.searchText = "cat" }
        await store.advance(by: .seconds(1))
        #expect(service.calls.isEmpty)
        #expect(viewModel.isBusy == false)
        await store.finish()
    }

    @Test func textWithoutAutoSearchDropsThePendingAutomaticSearch() async {
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        await store.send({ viewModel.setText("kittens!") }) { $0.searchText = "kittens!" }
        await store.advance(by: .seconds(1))
        #expect(service.calls.isEmpty)
        #expect(clock.sleeperCount == 0)
        await store.finish()
    }

    /// `execute` of the current text runs the search now: the automatic search pending for that text is dropped,
    /// not run once more after it.
    @Test func executeOfTheCurrentTextDropsThePendingAutomaticSearch() async throws {
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        try await store.send({ try viewModel.execute() }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        #expect(clock.sleeperCount == 0, "the debounce is cancelled")
        await store.advance(by: .seconds(1))
        #expect(service.calls == [.search("kittens", 1)])
        await store.send({ await answerSearch("kittens") }) {
            $0.results = .loaded(results("kittens", pages: [1]))
            $0.recentSearches = [recent("kittens")]
        }
        await store.finish()
    }

    @Test func latestWinsAndCancelsTheSearchInFlight() async throws {
        try await execute("kittens")
        try await execute("puppies")
        #expect(service.cancelled == [.search("kittens", 1)], "the first search was cancelled upstream")
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loading(SearchRequest(text: "puppies", page: 1), previous: nil)))

        await store.send({ await answerSearch("puppies") }) {
            $0.results = .loaded(results("puppies", pages: [1]))
            $0.recentSearches = [recent("puppies")]
        }
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loaded(results("puppies", pages: [1])),
                    recentSearches: [recent("puppies")]
                ))
        await store.finish()
    }

    @Test func cancelRestoresThePreviousResultsWithoutError() async throws {
        try await searchAndShow("kittens")
        try await execute("puppies", previous: results("kittens", pages: [1]))
        #expect(
            viewModel.state.results
                == .loading(SearchRequest(text: "puppies", page: 1), previous: results("kittens", pages: [1])))

        await store.send({ viewModel.cancel() }) { $0.results = .loaded(results("kittens", pages: [1])) }
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .loaded(results("kittens", pages: [1])),
                    recentSearches: [recent("kittens")],
                    lastError: nil
                ))
        #expect(service.cancelled == [.search("puppies", 1)])
        #expect(!viewModel.state.isSearching)
        await store.finish()
    }

    @Test func loadMoreAppendsPagesUntilTheLast() async throws {
        try await searchAndShow("kittens", pages: 2)
        try await store.send({ try viewModel.loadMore() }) {
            $0.results = .loading(
                SearchRequest(text: "kittens", page: 2), previous: results("kittens", pages: [1], pageCount: 2))
        }
        #expect(
            viewModel.state.results
                == .loading(
                    SearchRequest(text: "kittens", page: 2), previous: results("kittens", pages: [1], pageCount: 2)))
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("a search is in progress")) { try viewModel.loadMore() }
        }

        await store.send({ await answerSearch("kittens", page: 2, pages: 2) }) {
            $0.results = .loaded(results("kittens", pages: [1, 2], pageCount: 2))
        }
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
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("all 2 pages are loaded")) { try viewModel.loadMore() }
        }
        await store.finish()
    }

    @Test func loadMoreBeforeAnyResultsIsDisabled() async {
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("there are no results to extend")) { try viewModel.loadMore() }
        }
        await store.finish()
    }

    @Test(arguments: [
        UpstreamError(kind: .network, message: "timed out"),
        UpstreamError(kind: .upstream, message: "flickr answered HTTP 429", status: 429),
        UpstreamError(kind: .business, message: "Invalid API Key (Key has invalid format)", code: 100),
        UpstreamError(kind: .decoding, message: "flickr sent a response that could not be read"),
    ])
    func everyErrorKindKeepsThePreviousResults(error: UpstreamError) async throws {
        let kept = try await searchAndShow("kittens")

        try await execute("puppies", previous: kept)
        await store.send({ await service.answer(.search("puppies", 1), with: .failure(error)) }) {
            $0.results = .failed(error, previous: kept)
            $0.lastError = error
        }
        #expect(
            viewModel.state
                == SearchState(
                    searchText: "puppies", results: .failed(error, previous: kept), recentSearches: [recent("kittens")],
                    lastError: error
                ))
        #expect(viewModel.state.json["results"]?["status"] == "failed")
        #expect(viewModel.state.json["results"]?["error"] == error.json)

        try await store.send({ try viewModel.loadMore() }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 2), previous: kept)
        }
        await store.send({ await service.answer(.search("kittens", 2), with: .failure(error)) }) {
            $0.results = .failed(error, previous: kept)
        }
        #expect(viewModel.state.results == .failed(error, previous: kept))

        try await execute("puppies", previous: kept)
        await store.send({ await answerSearch("puppies") }) {
            $0.results = .loaded(results("puppies", pages: [1]))
            $0.recentSearches = [recent("puppies"), recent("kittens")]
            $0.lastError = nil
        }
        #expect(viewModel.state.lastError == nil, "the next success clears lastError")
        #expect(viewModel.state.recentSearches == [recent("puppies"), recent("kittens")])
        await store.finish()
    }

    @Test func recentSearchesAreUniqueMostRecentFirstAndAtMostTen() async throws {
        var shown: SearchResults? = nil
        for index in 0..<12 {
            let text = "search \(index)"
            try await execute(text, previous: shown)
            await store.send({ await answerSearch(text) }) {
                $0.results = .loaded(results(text, pages: [1]))
                $0.recentSearches = (0...index).reversed().prefix(10).map { recent("search \($0)") }
            }
            shown = results(text, pages: [1])
        }
        try await execute("search 5", previous: shown)
        await store.send({ await answerSearch("search 5") }) {
            $0.results = .loaded(results("search 5", pages: [1]))
            $0.recentSearches = [5, 11, 10, 9, 8, 7, 6, 4, 3, 2].map { recent("search \($0)") }
        }
        #expect(
            viewModel.state.recentSearches.map(\.searchString) == [
                "search 5", "search 11", "search 10", "search 9", "search 8", "search 7", "search 6", "search 4",
                "search 3", "search 2",
            ])
        await store.finish()
    }

    @Test func visiblePhotosLoadMetadataOnceAFewAtATime() async throws {
        var shown = try await searchAndShow("kittens", count: 6)
        let ids = shown.photos.map(\.id)

        /// Answers both counts of photo `index`: one change, when the second arrives.
        func answerMetadata(_ index: Int, favorites: Int, comments: Int) async {
            await store.sendWithoutChange {
                await service.answer(.favorites(ids[index]), with: .success(.count(favorites)))
            }
            shown.photos[index].favorites = favorites
            shown.photos[index].comments = comments
            await store.send({ await service.answer(.comments(ids[index]), with: .success(.count(comments))) }) {
                $0.results = .loaded(shown)
            }
        }

        await store.sendWithoutChange { viewModel.visible(ids) }
        let firstFour = ids.prefix(4).flatMap { [FakeFlickrService.Call.favorites($0), .comments($0)] }
        #expect(Set(service.pendingCalls) == Set(firstFour), "four photos at a time")
        #expect(service.pendingCalls.count == 8)

        await answerMetadata(0, favorites: 7, comments: 2)
        #expect(viewModel.state.results.value?.photos[0].favorites == 7)
        #expect(viewModel.state.results.value?.photos[0].comments == 2)
        #expect(service.pendingCalls.contains(.favorites(ids[4])), "the next photo started")

        // Scrolling: photos 1 and 2 leave the screen; their loads go on (the upstream calls are made anyway, and
        // a scrolling loop must not start them again and again). Photo 0 is not loaded again.
        let callsBefore = service.calls.count
        await store.sendWithoutChange { viewModel.visible([ids[0], ids[3], ids[4], ids[5]]) }
        #expect(service.cancelled.isEmpty)
        #expect(!service.calls[callsBefore...].contains(.favorites(ids[0])))
        #expect(!service.pendingCalls.contains(.favorites(ids[5])), "at most four at a time")

        // Photo 1's load finishes while it is off screen; it is shown when it comes back, never loaded again.
        await answerMetadata(1, favorites: 5, comments: 1)
        #expect(service.pendingCalls.contains(.favorites(ids[5])), "the next photo started")
        for index in 2...5 {
            await answerMetadata(index, favorites: 1, comments: 0)
        }
        let callsAfter = service.calls.count
        await store.sendWithoutChange {
            viewModel.visible([ids[1]])
            viewModel.visible([])
            viewModel.visible([ids[1], ids[2]])
        }
        #expect(service.calls.count == callsAfter, "every photo was loaded once")
        #expect(viewModel.state.results.value?.photos.map(\.comments) == [2, 1, 0, 0, 0, 0])
        await store.finish()
    }

    @Test func aPhotoWhoseMetadataFailedIsNotLoadedAgainForTheseResults() async throws {
        try await searchAndShow("kittens", count: 1)
        let photo = "kittens-1-0"
        await store.sendWithoutChange { viewModel.visible([photo]) }
        // NB: the comments call is cancelled with the failed favorites call (one load of the pair).
        await store.sendWithoutChange {
            await service.answer(.favorites(photo), with: .failure(UpstreamError(kind: .network, message: "reset")))
        }
        let calls = service.calls.count
        await store.sendWithoutChange {
            for _ in 0..<5 { viewModel.visible([photo]) }
        }
        #expect(service.calls.count == calls)
        await store.finish()
    }

    /// A metadata load of the results before a new search, finishing after that search started another load of the
    /// same photo (the same text searched again), writes nothing and leaves the new load in place: the new load's
    /// counts are shown when they come.
    @Test func aLoadOfEarlierResultsFinishingLateLeavesTheNewLoadOfTheSamePhoto() async throws {
        let shown = try await searchAndShow("kittens", count: 1)
        let photo = "kittens-1-0"
        await store.sendWithoutChange { viewModel.visible([photo]) }
        await store.sendWithoutChange { await service.answer(.favorites(photo), with: .success(.count(7))) }
        // In one turn of the loop: the old load's last answer arrives (its task is on its way back), the text is
        // searched again, and the photo, still shown as the previous results, starts loading again.
        try await store.send({
            service.answerNow(.comments(photo), with: .success(.count(2)))
            try viewModel.execute(text: "kittens")
            viewModel.visible([photo])
        }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: shown)
        }
        #expect(service.pendingCalls == [.search("kittens", 1), .favorites(photo), .comments(photo)])
        await store.send({ await answerSearch("kittens", count: 1) }) { $0.results = .loaded(shown) }
        await store.sendWithoutChange { await service.answer(.favorites(photo), with: .success(.count(5))) }
        var counted = shown
        counted.photos[0].favorites = 5
        counted.photos[0].comments = 1
        await store.send({ await service.answer(.comments(photo), with: .success(.count(1))) }) {
            $0.results = .loaded(counted)
        }
        await store.finish()
    }

    @Test func waitUntilIdleCoversTheDebounceAndTheSearch() async {
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state.results.value?.searchString
        }
        await settle()
        await store.advance(by: .milliseconds(300)) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        await store.send({ await answerSearch("kittens") }) {
            $0.results = .loaded(results("kittens", pages: [1]))
            $0.recentSearches = [recent("kittens")]
        }
        #expect(await waiter.value == "kittens")
        await store.finish()
    }
    /// `execute` while the debounce's wake-up is on its way (the clock has passed the interval, the task is not
    /// back on the loop yet): the command's search is the only one, the automatic search does not replace it.
    @Test func aSearchStartedAsTheDebounceWakesIsNotReplacedByTheAutomaticOne() async throws {
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        try await store.send({
            clock.advance(by: SearchViewModel.debounceInterval)
            try viewModel.execute(text: "sunset")
        }) { $0.searchText = "sunset" }
        store.receive { $0.results = .loading(SearchRequest(text: "sunset", page: 1), previous: nil) }
        #expect(service.calls == [.search("sunset", 1)])
        #expect(service.cancelled.isEmpty)
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state.results
        }
        await store.send({ await answerSearch("sunset") }) {
            $0.results = .loaded(results("sunset", pages: [1]))
            $0.recentSearches = [recent("sunset")]
        }
        #expect(await waiter.value == .loaded(results("sunset", pages: [1])))
        #expect(service.calls == [.search("sunset", 1)])
        await store.finish()
    }

    /// An automatic search that does not run (its text cannot search) ends no wait while a load is in flight: a
    /// `Prefer: wait` on `load-more` answers with the loaded page, not with the loading state.
    @Test func anAutomaticSearchThatDoesNotRunEndsNoWaitForTheLoadInFlight() async throws {
        try await searchAndShow("kittens")
        await store.send({ viewModel.setText("cat", autoSearch: true) }) { $0.searchText = "cat" }
        try await store.send({ try viewModel.loadMore() }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 2), previous: results("kittens", pages: [1]))
        }
        let ended = WaitEnded()
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            ended.value = true
            return viewModel.state.results
        }
        await settle()
        await store.advance(by: SearchViewModel.debounceInterval)
        #expect(!ended.value, "the wait ended while page 2 was loading")
        await store.send({ await answerSearch("kittens", page: 2) }) {
            $0.results = .loaded(results("kittens", pages: [1, 2]))
        }
        #expect(await waiter.value == .loaded(results("kittens", pages: [1, 2])))
        await store.finish()
    }
}

/// Whether a waiting task got past its wait.
@LoopActor
private final class WaitEnded {
    var value = false
}
