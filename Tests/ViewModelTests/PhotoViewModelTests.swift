import EventLoop
import JSON
import Services
import Testing

@testable import ViewModels

@LoopActor
@Suite("PhotoViewModel")
struct PhotoViewModelTests {
    let service = FakeFlickrService()
    let viewModel: PhotoViewModel
    let store: ViewModelTestStore<PhotoViewModel>

    init() {
        viewModel = PhotoViewModel(service: service)
        store = ViewModelTestStore(viewModel, service: service)
    }

    nonisolated static let notFound = UpstreamError(kind: .business, message: "Photo not found", code: 1)
    nonisolated static let failures = [
        notFound,
        UpstreamError(kind: .network, message: "could not connect: refused"),
        UpstreamError(kind: .upstream, message: "Flickr answered HTTP 500", status: 500),
        UpstreamError(kind: .decoding, message: "Flickr sent a response that could not be read: no photo"),
    ]

    /// The state of `photoID` with both loads in flight and nothing shown.
    func loading(_ photoID: String, lastError: UpstreamError? = nil) -> PhotoState {
        PhotoState(
            photoId: photoID, detail: .loading(photoID, previous: nil), comments: .loading(photoID, previous: nil),
            lastError: lastError
        )
    }

    func loaded(_ photoID: String, comments: [PhotoComment]? = nil) -> PhotoState {
        PhotoState(
            photoId: photoID, detail: .loaded(photoDetail(photoID)),
            comments: .loaded(comments ?? photoComments(photoID))
        )
    }

    /// Opens `photoID` (nothing open before) and answers both loads successfully.
    func openAndLoad(_ photoID: String) async {
        await store.send({ viewModel.open(photoID: photoID) }) { $0 = loading(photoID) }
        await store.send({
            await service.answer(.photoInfo(photoID), with: .success(.detail(photoDetail(photoID))))
        }) {
            $0.detail = .loaded(photoDetail(photoID))
        }
        await store.send({
            await service.answer(.photoComments(photoID), with: .success(.commentList(photoComments(photoID))))
        }) {
            $0 = loaded(photoID)
        }
    }

    /// Answers the detail load of `photoID` with `result`.
    func answerDetail(_ photoID: String, _ result: Result<PhotoDetail, UpstreamError>) async {
        await service.answer(.photoInfo(photoID), with: result.map { .detail($0) })
    }

    /// Answers the comments load of `photoID` with `result`.
    func answerComments(_ photoID: String, _ result: Result<[PhotoComment], UpstreamError>) async {
        await service.answer(.photoComments(photoID), with: result.map { .commentList($0) })
    }

    // MARK: Open

    @Test func theInitialStateHasNoPhotoAndIdleLoadables() async {
        #expect(viewModel.state == PhotoState(photoId: nil, detail: .idle, comments: .idle, lastError: nil))
        #expect(
            viewModel.stateJSON == [
                "photoId": nil,
                "detail": ["status": "idle", "value": nil, "error": nil],
                "comments": ["status": "idle", "value": nil, "error": nil],
                "lastError": nil,
            ]
        )
        #expect(!viewModel.isBusy)
        await store.finish()
    }

    @Test func openLoadsDetailAndCommentsAtTheSameTime() async {
        // One command, one change: a second change would be left unasserted and fail the next step.
        await store.send({ viewModel.open(photoID: "53012345678") }) { $0 = loading("53012345678") }
        #expect(viewModel.state == loading("53012345678"))
        #expect(viewModel.isBusy)
        #expect(Set(service.pendingCalls) == [.photoInfo("53012345678"), .photoComments("53012345678")])

        await store.send({ await answerDetail("53012345678", .success(photoDetail("53012345678"))) }) {
            $0.detail = .loaded(photoDetail("53012345678"))
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "53012345678", detail: .loaded(photoDetail("53012345678")),
                    comments: .loading("53012345678", previous: nil)
                )
        )
        #expect(viewModel.isBusy)

        await store.send({ await answerComments("53012345678", .success(photoComments("53012345678"))) }) {
            $0.comments = .loaded(photoComments("53012345678"))
        }
        #expect(viewModel.state == loaded("53012345678"))
        #expect(!viewModel.isBusy)
        #expect(service.cancelled.isEmpty)
        await store.finish()
    }

    @Test func commentsMayArriveBeforeTheDetail() async {
        await store.send({ viewModel.open(photoID: "7") }) { $0 = loading("7") }
        await store.send({ await answerComments("7", .success(photoComments("7"))) }) {
            $0.comments = .loaded(photoComments("7"))
        }
        #expect(
            viewModel.state
                == PhotoState(photoId: "7", detail: .loading("7", previous: nil), comments: .loaded(photoComments("7")))
        )
        await store.send({ await answerDetail("7", .success(photoDetail("7"))) }) { $0 = loaded("7") }
        #expect(viewModel.state == loaded("7"))
        await store.finish()
    }

    @Test func theStateJSONIsTheAPIsPhotoState() async {
        let detail = photoDetail("53012345678")
        let comment = photoComments("53012345678")[0]
        await store.send({ viewModel.open(photoID: "53012345678") }) { $0 = loading("53012345678") }
        await store.send({ await answerDetail("53012345678", .success(detail)) }) { $0.detail = .loaded(detail) }
        await store.send({ await answerComments("53012345678", .success([comment])) }) {
            $0.comments = .loaded([comment])
        }
        #expect(
            viewModel.stateJSON == [
                "photoId": "53012345678",
                "detail": [
                    "status": "loaded",
                    "value": [
                        "id": "53012345678", "title": "Photo 53012345678", "description": "On the sofa, after lunch.",
                        "owner": "Jane Doe", "takenAt": "2023-07-04T15:20:11", "views": 1204,
                        "tags": ["cat", "Kitten"], "imageUrl": .string(detail.imageUrl),
                        "pageUrl": .string(detail.pageUrl),
                    ],
                    "error": nil,
                ],
                "comments": [
                    "status": "loaded",
                    "value": [
                        [
                            "id": .string(comment.id), "author": "Sam", "text": "Lovely light!",
                            "createdAt": "2023-07-05T10:00:00Z",
                        ]
                    ],
                    "error": nil,
                ],
                "lastError": nil,
            ]
        )
        await store.finish()
    }

    @Test func anEmptyCommentListIsLoadedAndEmpty() async {
        await store.send({ viewModel.open(photoID: "9") }) { $0 = loading("9") }
        await store.send({ await answerDetail("9", .success(photoDetail("9"))) }) {
            $0.detail = .loaded(photoDetail("9"))
        }
        await store.send({ await answerComments("9", .success([])) }) { $0.comments = .loaded([]) }
        #expect(viewModel.state == loaded("9", comments: []))
        #expect(viewModel.stateJSON["comments"] == ["status": "loaded", "value": [], "error": nil])
        await store.finish()
    }

    @Test func openingAnotherPhotoWhileLoadingCancelsTheFirstLoads() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ viewModel.open(photoID: "2") }) { $0 = loading("2") }
        #expect(viewModel.state == loading("2"))
        #expect(
            Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")], "both transfers of photo 1 are aborted")
        #expect(Set(service.pendingCalls) == [.photoInfo("2"), .photoComments("2")])

        await store.send({ await answerDetail("2", .success(photoDetail("2"))) }) {
            $0.detail = .loaded(photoDetail("2"))
        }
        await store.send({ await answerComments("2", .success(photoComments("2"))) }) { $0 = loaded("2") }
        #expect(viewModel.state == loaded("2"))
        await store.finish()
    }

    @Test func openingAnotherPhotoWhenOneIsLoadedShowsNothingOfTheFirst() async {
        await openAndLoad("1")
        await store.send({ viewModel.open(photoID: "2") }) { $0 = loading("2") }
        #expect(viewModel.state == loading("2"))
        #expect(viewModel.stateJSON["detail"] == ["status": "loading", "value": nil, "error": nil])
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        await store.finish()
    }

    @Test func openingTheOpenPhotoAgainReloadsItAndKeepsItVisible() async {
        await openAndLoad("1")
        await store.send({ viewModel.open(photoID: "1") }) {
            $0.detail = .loading("1", previous: photoDetail("1"))
            $0.comments = .loading("1", previous: photoComments("1"))
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loading("1", previous: photoDetail("1")),
                    comments: .loading("1", previous: photoComments("1"))
                )
        )
        #expect(Set(service.pendingCalls) == [.photoInfo("1"), .photoComments("1")])
        var newer = photoDetail("1")
        newer.views = 2000
        await store.send({ await answerDetail("1", .success(newer)) }) { $0.detail = .loaded(newer) }
        await store.send({ await answerComments("1", .success([])) }) { $0.comments = .loaded([]) }
        #expect(viewModel.state == PhotoState(photoId: "1", detail: .loaded(newer), comments: .loaded([])))
        await store.finish()
    }

    @Test func openingTheLoadingPhotoAgainRestartsItsLoads() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.sendWithoutChange { viewModel.open(photoID: "1") }
        #expect(viewModel.state == loading("1"))
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
        #expect(Set(service.pendingCalls) == [.photoInfo("1"), .photoComments("1")])
        await store.send({ await answerDetail("1", .success(photoDetail("1"))) }) {
            $0.detail = .loaded(photoDetail("1"))
        }
        await store.send({ await answerComments("1", .success(photoComments("1"))) }) { $0 = loaded("1") }
        #expect(viewModel.state == loaded("1"))
        await store.finish()
    }

    // MARK: Close

    @Test func closeMidFlightCancelsBothLoadsAndReturnsToTheInitialState() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        #expect(viewModel.state == PhotoState())
        #expect(!viewModel.isBusy)
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
        #expect(service.pendingCalls.isEmpty)
        await store.finish()
    }

    @Test func closeAfterOneLoadEndedCancelsTheOther() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .success(photoDetail("1"))) }) {
            $0.detail = .loaded(photoDetail("1"))
        }
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        #expect(viewModel.state == PhotoState())
        #expect(service.cancelled == [.photoComments("1")])
        await store.finish()
    }

    @Test func closeClearsAFailure() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .failure(Self.notFound)) }) {
            $0.detail = .failed(Self.notFound, previous: nil)
            $0.lastError = Self.notFound
        }
        await store.send({ await answerComments("1", .failure(Self.notFound)) }) {
            $0.comments = .failed(Self.notFound, previous: nil)
        }
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        #expect(viewModel.state == PhotoState())
        await store.finish()
    }

    @Test func closeWithNothingOpenChangesNothing() async {
        await store.sendWithoutChange { viewModel.close() }
        #expect(viewModel.state == PhotoState())
        await store.finish()
    }

    // MARK: Failures

    @Test(arguments: failures)
    func aDetailFailureFailsOnlyTheDetail(error: UpstreamError) async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        let failed = PhotoState(
            photoId: "1", detail: .failed(error, previous: nil), comments: .loading("1", previous: nil),
            lastError: error
        )
        await store.send({ await answerDetail("1", .failure(error)) }) { $0 = failed }
        #expect(viewModel.state == failed)
        await store.send({ await answerComments("1", .success(photoComments("1"))) }) {
            $0.comments = .loaded(photoComments("1"))
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .failed(error, previous: nil), comments: .loaded(photoComments("1")),
                    lastError: error
                ),
            "the comments' success does not clear the detail's failure"
        )
        #expect(viewModel.stateJSON["detail"]?["status"] == "failed")
        #expect(viewModel.stateJSON["detail"]?["error"] == error.json)
        #expect(viewModel.stateJSON["lastError"] == error.json)
        #expect(!viewModel.isBusy)
        await store.finish()
    }

    @Test(arguments: failures)
    func aCommentsFailureFailsOnlyTheComments(error: UpstreamError) async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerComments("1", .failure(error)) }) {
            $0.comments = .failed(error, previous: nil)
            $0.lastError = error
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loading("1", previous: nil), comments: .failed(error, previous: nil),
                    lastError: error
                )
        )
        await store.send({ await answerDetail("1", .success(photoDetail("1"))) }) {
            $0.detail = .loaded(photoDetail("1"))
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loaded(photoDetail("1")), comments: .failed(error, previous: nil),
                    lastError: error
                )
        )
        #expect(viewModel.stateJSON["comments"]?["error"] == error.json)
        await store.finish()
    }

    @Test func lastErrorHoldsTheMostRecentFailure() async {
        let network = UpstreamError(kind: .network, message: "timed out")
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .failure(Self.notFound)) }) {
            $0.detail = .failed(Self.notFound, previous: nil)
            $0.lastError = Self.notFound
        }
        await store.send({ await answerComments("1", .failure(network)) }) {
            $0.comments = .failed(network, previous: nil)
            $0.lastError = network
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .failed(Self.notFound, previous: nil),
                    comments: .failed(network, previous: nil),
                    lastError: network
                )
        )
        await store.finish()
    }

    @Test func lastErrorStaysWhileLoadingAndABothLoadedOpenClearsIt() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .failure(Self.notFound)) }) {
            $0.detail = .failed(Self.notFound, previous: nil)
            $0.lastError = Self.notFound
        }
        await store.send({ await answerComments("1", .success([])) }) { $0.comments = .loaded([]) }

        await store.send({ viewModel.open(photoID: "2") }) { $0 = loading("2", lastError: Self.notFound) }
        #expect(viewModel.state == loading("2", lastError: Self.notFound))
        await store.send({ await answerDetail("2", .success(photoDetail("2"))) }) {
            $0.detail = .loaded(photoDetail("2"))
        }
        #expect(viewModel.state.lastError == Self.notFound, "kept until both loads succeeded")
        await store.send({ await answerComments("2", .success(photoComments("2"))) }) { $0 = loaded("2") }
        #expect(viewModel.state == loaded("2"))
        await store.finish()
    }

    @Test func aReloadFailureKeepsWhatWasShown() async {
        await openAndLoad("1")
        let error = UpstreamError(kind: .upstream, message: "Flickr answered HTTP 503", status: 503)
        await store.send({ viewModel.open(photoID: "1") }) {
            $0.detail = .loading("1", previous: photoDetail("1"))
            $0.comments = .loading("1", previous: photoComments("1"))
        }
        await store.send({ await answerDetail("1", .failure(error)) }) {
            $0.detail = .failed(error, previous: photoDetail("1"))
            $0.lastError = error
        }
        await store.send({ await answerComments("1", .success(photoComments("1"))) }) {
            $0.comments = .loaded(photoComments("1"))
        }
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .failed(error, previous: photoDetail("1")),
                    comments: .loaded(photoComments("1")),
                    lastError: error
                )
        )
        await store.finish()
    }

    // MARK: Waiting

    @Test func waitUntilIdleReturnsWhenBothLoadsEnded() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state
        }
        await store.send({ await answerDetail("1", .success(photoDetail("1"))) }) {
            $0.detail = .loaded(photoDetail("1"))
        }
        await store.send({ await answerComments("1", .failure(Self.notFound)) }) {
            $0.comments = .failed(Self.notFound, previous: nil)
            $0.lastError = Self.notFound
        }
        #expect(
            await waiter.value
                == PhotoState(
                    photoId: "1", detail: .loaded(photoDetail("1")), comments: .failed(Self.notFound, previous: nil),
                    lastError: Self.notFound
                )
        )
        await store.finish()
    }

    @Test func waitUntilIdleReturnsOnCloseAndAtOnceWhenIdle() async {
        await viewModel.waitUntilIdle()
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        let waiter = Task { @LoopActor in await viewModel.waitUntilIdle() }
        await settle()
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        await waiter.value
        #expect(viewModel.state == PhotoState())
        await store.finish()
    }

    @Test func shutdownCancelsTheLoadsAndKeepsTheState() async {
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.sendWithoutChange { viewModel.shutdown() }
        #expect(!viewModel.isBusy)
        #expect(viewModel.state == loading("1"))
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
        await store.finish()
    }

    // MARK: Snapshot

    @Test(arguments: SnapshotForm.allCases)
    func aLoadedPhotoRestoresEqual(form: SnapshotForm) async throws {
        var detail = photoDetail("1")
        detail.takenAt = nil
        detail.views = nil
        detail.tags = []
        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .success(detail)) }) { $0.detail = .loaded(detail) }
        await store.send({ await answerComments("1", .success(photoComments("1"))) }) {
            $0.comments = .loaded(photoComments("1"))
        }

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        let restoredStore = ViewModelTestStore(restored, service: other)
        try await restoredStore.send({ try restored.restore(form.snapshot(of: viewModel)) }) { $0 = store.state }
        #expect(restored.state == viewModel.state)
        #expect(restored.stateJSON == viewModel.stateJSON)
        #expect(!restored.isBusy)
        #expect(other.calls.isEmpty)
        await restoredStore.finish()
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func theInitialStateAndFailuresRestoreEqual(form: SnapshotForm) async throws {
        let initial = PhotoViewModel(service: FakeFlickrService())
        let initialStore = ViewModelTestStore(initial)
        try await initialStore.sendWithoutChange { try initial.restore(form.snapshot(of: viewModel)) }
        #expect(initial.state == PhotoState())
        await initialStore.finish()

        await store.send({ viewModel.open(photoID: "1") }) { $0 = loading("1") }
        await store.send({ await answerDetail("1", .failure(Self.notFound)) }) {
            $0.detail = .failed(Self.notFound, previous: nil)
            $0.lastError = Self.notFound
        }
        await store.send({ await answerComments("1", .success([])) }) { $0.comments = .loaded([]) }
        let restored = PhotoViewModel(service: FakeFlickrService())
        let restoredStore = ViewModelTestStore(restored)
        let failed = PhotoState(
            photoId: "1", detail: .failed(Self.notFound, previous: nil), comments: .loaded([]),
            lastError: Self.notFound
        )
        try await restoredStore.send({ try restored.restore(form.snapshot(of: viewModel)) }) { $0 = failed }
        #expect(restored.state == failed)
        await restoredStore.finish()
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func loadsInFlightRunAgainWhereTheyAreRestored(form: SnapshotForm) async throws {
        await openAndLoad("1")
        let error = UpstreamError(kind: .network, message: "timed out")
        await store.send({ viewModel.open(photoID: "1") }) {
            $0.detail = .loading("1", previous: photoDetail("1"))
            $0.comments = .loading("1", previous: photoComments("1"))
        }
        await store.send({ await answerComments("1", .failure(error)) }) {
            $0.comments = .failed(error, previous: photoComments("1"))
            $0.lastError = error
        }
        let snapshot = try form.snapshot(of: viewModel)

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        // The restored model's changes: exactly the restored state, then the detail's answer.
        let restoredStore = ViewModelTestStore(restored, service: other)
        let interrupted = PhotoState(
            photoId: "1", detail: .loading("1", previous: photoDetail("1")),
            comments: .failed(error, previous: photoComments("1")),
            lastError: error
        )
        try await restoredStore.send({ try restored.restore(snapshot) }) { $0 = interrupted }
        #expect(restored.state == interrupted, "the same state, the detail still loading")
        #expect(restored.isBusy)
        #expect(other.pendingCalls == [.photoInfo("1")], "only the interrupted load runs again")

        var newer = photoDetail("1")
        newer.title = "Renamed"
        await restoredStore.send({ await other.answer(.photoInfo("1"), with: .success(.detail(newer))) }) {
            $0.detail = .loaded(newer)
        }
        #expect(
            restored.state
                == PhotoState(
                    photoId: "1", detail: .loaded(newer), comments: .failed(error, previous: photoComments("1")),
                    lastError: error
                )
        )
        #expect(!restored.isBusy)
        await restoredStore.finish()
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func bothLoadsInFlightRunAgainAndARestoreCancelsWhatRan(form: SnapshotForm) async throws {
        await store.send({ viewModel.open(photoID: "2") }) { $0 = loading("2") }
        let snapshot = try form.snapshot(of: viewModel)

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        let restoredStore = ViewModelTestStore(restored, service: other)
        await restoredStore.send({ restored.open(photoID: "old") }) { $0 = loading("old") }
        try await restoredStore.send({ try restored.restore(snapshot) }) { $0 = loading("2") }
        #expect(restored.state == loading("2"))
        #expect(Set(other.cancelled) == [.photoInfo("old"), .photoComments("old")])
        #expect(Set(other.pendingCalls) == [.photoInfo("2"), .photoComments("2")])
        await restoredStore.send({ await other.answer(.photoInfo("2"), with: .success(.detail(photoDetail("2")))) }) {
            $0.detail = .loaded(photoDetail("2"))
        }
        await restoredStore.send({
            await other.answer(.photoComments("2"), with: .success(.commentList(photoComments("2"))))
        }) {
            $0 = loaded("2")
        }
        #expect(restored.state == loaded("2"))
        await restoredStore.finish()
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        await store.finish()
    }

    @Test(arguments: [
        "null", "[]", #"{}"#, #"{"state": {"photoId": 1}}"#,
        #"{"state": {"photoId": "1", "detail": {"status": "weird"}, "comments": {"status": "idle"}, "lastError": null}}"#,
        #"{"state": {"photoId": "1", "detail": {"status": "loaded", "value": null}, "comments": {"status": "idle"}, "lastError": null}}"#,
        #"{"state": {"photoId": "1", "detail": {"status": "idle"}, "comments": {"status": "loading", "request": {}}, "lastError": null}}"#,
        #"{"state": {"photoId": "1", "detail": {"status": "idle"}, "comments": {"status": "loaded", "value": {"list": [{"id": 1}]}}, "lastError": null}}"#,
        #"{"state": {"photoId": "1", "detail": {"status": "idle"}, "comments": {"status": "idle"}, "lastError": {"kind": "alien", "message": "x"}}}"#,
    ])
    func corruptSnapshotsAreErrorsAndChangeNothing(text: String) async throws {
        await store.send({ viewModel.open(photoID: "kept") }) { $0 = loading("kept") }
        await store.sendWithoutChange {
            #expect(throws: SnapshotError.self) { try viewModel.restore(JSONParser.parse(text)) }
        }
        #expect(viewModel.state == loading("kept"))
        #expect(viewModel.isBusy, "the loads go on")
        #expect(service.cancelled.isEmpty)
        await store.send({ viewModel.close() }) { $0 = PhotoState() }
        await store.finish()
    }

    // MARK: Commands

    @Test func openDecodesANonEmptyPhotoId() throws {
        #expect(try PhotoOpenCommand(body: ["photoId": "53012345678", "other": 1]).photoId == "53012345678")
        for body: JSONObject in [[:], ["photoId": ""], ["photoId": 5], ["photoId": nil], ["photoId": ["1"]]] {
            #expect(throws: CommandRejection.invalidField("photoId", "must be a non-empty string")) {
                try PhotoOpenCommand(body: body)
            }
        }
    }

    @Test func theCommandsAreOpenAndClose() async throws {
        #expect(PhotoViewModel.name == "photo")
        #expect(PhotoViewModel.commands.map(\.name) == ["open", "close"])
        let open = try #require(PhotoViewModel.commands.first { $0.name == "open" })
        var reply: CommandReply?
        try await store.send({ reply = try open.decode(["photoId": "1"])(viewModel) }) { $0 = loading("1") }
        guard case .accepted = reply else {
            Issue.record("open answers 202")
            return
        }
        #expect(viewModel.state == loading("1"))
        let close = try #require(PhotoViewModel.commands.first { $0.name == "close" })
        try await store.send({ reply = try close.decode([:])(viewModel) }) { $0 = PhotoState() }
        guard case .state = reply else {
            Issue.record("close answers the state")
            return
        }
        #expect(viewModel.state == PhotoState())
        await store.finish()
    }
}

/// A deterministic photo detail.
func photoDetail(_ photoID: String) -> PhotoDetail {
    PhotoDetail(
        id: photoID, title: "Photo \(photoID)", description: "On the sofa, after lunch.", owner: "Jane Doe",
        takenAt: "2023-07-04T15:20:11", views: 1204, tags: ["cat", "Kitten"],
        imageUrl: "https://live.staticflickr.com/65535/\(photoID)_abcdef1234_b.jpg",
        pageUrl: "https://www.flickr.com/photos/janedoe/\(photoID)/"
    )
}

/// Deterministic comments.
func photoComments(_ photoID: String) -> [PhotoComment] {
    [
        PhotoComment(
            id: "1234-\(photoID)-72157", author: "Sam", text: "Lovely light!", createdAt: "2023-07-05T10:00:00Z"),
        PhotoComment(id: "1234-\(photoID)-72158", author: "Ann", text: "", createdAt: "2023-07-06T10:00:00Z"),
    ]
}
