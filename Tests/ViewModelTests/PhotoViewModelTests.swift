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
    let recorder = PhotoStateRecorder()
    var changes: [PhotoState] { recorder.states }

    init() {
        viewModel = PhotoViewModel(service: service)
        viewModel.onChange = { [recorder] in recorder.states.append($0) }
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

    /// Opens `photoID` and answers both loads successfully.
    func openAndLoad(_ photoID: String) async {
        viewModel.open(photoID: photoID)
        await service.answer(.photoInfo(photoID), with: .success(.detail(photoDetail(photoID))))
        await service.answer(.photoComments(photoID), with: .success(.commentList(photoComments(photoID))))
    }

    // MARK: Open

    @Test func theInitialStateHasNoPhotoAndIdleLoadables() {
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
        #expect(changes.isEmpty)
    }

    @Test func openLoadsDetailAndCommentsAtTheSameTime() async {
        viewModel.open(photoID: "53012345678")
        #expect(viewModel.state == loading("53012345678"))
        #expect(changes == [loading("53012345678")], "one command, one change")
        #expect(viewModel.isBusy)
        await settle()
        #expect(Set(service.pendingCalls) == [.photoInfo("53012345678"), .photoComments("53012345678")])

        await service.answer(.photoInfo("53012345678"), with: .success(.detail(photoDetail("53012345678"))))
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "53012345678", detail: .loaded(photoDetail("53012345678")),
                    comments: .loading("53012345678", previous: nil)
                )
        )
        #expect(viewModel.isBusy)

        await service.answer(.photoComments("53012345678"), with: .success(.commentList(photoComments("53012345678"))))
        #expect(viewModel.state == loaded("53012345678"))
        #expect(changes.count == 3)
        #expect(!viewModel.isBusy)
        #expect(service.cancelled.isEmpty)
    }

    @Test func commentsMayArriveBeforeTheDetail() async {
        viewModel.open(photoID: "7")
        await service.answer(.photoComments("7"), with: .success(.commentList(photoComments("7"))))
        #expect(
            viewModel.state
                == PhotoState(photoId: "7", detail: .loading("7", previous: nil), comments: .loaded(photoComments("7")))
        )
        await service.answer(.photoInfo("7"), with: .success(.detail(photoDetail("7"))))
        #expect(viewModel.state == loaded("7"))
    }

    @Test func theStateJSONIsTheAPIsPhotoState() async {
        let detail = photoDetail("53012345678")
        let comment = photoComments("53012345678")[0]
        viewModel.open(photoID: "53012345678")
        await service.answer(.photoInfo("53012345678"), with: .success(.detail(detail)))
        await service.answer(.photoComments("53012345678"), with: .success(.commentList([comment])))
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
    }

    @Test func anEmptyCommentListIsLoadedAndEmpty() async {
        viewModel.open(photoID: "9")
        await service.answer(.photoInfo("9"), with: .success(.detail(photoDetail("9"))))
        await service.answer(.photoComments("9"), with: .success(.commentList([])))
        #expect(viewModel.state == loaded("9", comments: []))
        #expect(viewModel.stateJSON["comments"] == ["status": "loaded", "value": [], "error": nil])
    }

    @Test func openingAnotherPhotoWhileLoadingCancelsTheFirstLoads() async {
        viewModel.open(photoID: "1")
        await settle()
        viewModel.open(photoID: "2")
        #expect(viewModel.state == loading("2"))
        #expect(changes == [loading("1"), loading("2")])
        await settle()
        #expect(
            Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")], "both transfers of photo 1 are aborted")
        #expect(Set(service.pendingCalls) == [.photoInfo("2"), .photoComments("2")])

        await service.answer(.photoInfo("2"), with: .success(.detail(photoDetail("2"))))
        await service.answer(.photoComments("2"), with: .success(.commentList(photoComments("2"))))
        #expect(viewModel.state == loaded("2"))
        #expect(changes.count == 4)
    }

    @Test func openingAnotherPhotoWhenOneIsLoadedShowsNothingOfTheFirst() async {
        await openAndLoad("1")
        viewModel.open(photoID: "2")
        #expect(viewModel.state == loading("2"))
        #expect(viewModel.stateJSON["detail"] == ["status": "loading", "value": nil, "error": nil])
    }

    @Test func openingTheOpenPhotoAgainReloadsItAndKeepsItVisible() async {
        await openAndLoad("1")
        viewModel.open(photoID: "1")
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loading("1", previous: photoDetail("1")),
                    comments: .loading("1", previous: photoComments("1"))
                )
        )
        await settle()
        #expect(Set(service.pendingCalls) == [.photoInfo("1"), .photoComments("1")])
        var newer = photoDetail("1")
        newer.views = 2000
        await service.answer(.photoInfo("1"), with: .success(.detail(newer)))
        await service.answer(.photoComments("1"), with: .success(.commentList([])))
        #expect(viewModel.state == PhotoState(photoId: "1", detail: .loaded(newer), comments: .loaded([])))
    }

    @Test func openingTheLoadingPhotoAgainRestartsItsLoads() async {
        viewModel.open(photoID: "1")
        await settle()
        viewModel.open(photoID: "1")
        #expect(viewModel.state == loading("1"))
        await settle()
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
        #expect(Set(service.pendingCalls) == [.photoInfo("1"), .photoComments("1")])
        await service.answer(.photoInfo("1"), with: .success(.detail(photoDetail("1"))))
        await service.answer(.photoComments("1"), with: .success(.commentList(photoComments("1"))))
        #expect(viewModel.state == loaded("1"))
    }

    // MARK: Close

    @Test func closeMidFlightCancelsBothLoadsAndReturnsToTheInitialState() async {
        viewModel.open(photoID: "1")
        await settle()
        viewModel.close()
        #expect(viewModel.state == PhotoState())
        #expect(!viewModel.isBusy)
        await settle()
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
        #expect(service.pendingCalls.isEmpty)
        #expect(changes == [loading("1"), PhotoState()])
    }

    @Test func closeAfterOneLoadEndedCancelsTheOther() async {
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .success(.detail(photoDetail("1"))))
        viewModel.close()
        #expect(viewModel.state == PhotoState())
        await settle()
        #expect(service.cancelled == [.photoComments("1")])
    }

    @Test func closeClearsAFailure() async {
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(Self.notFound))
        await service.answer(.photoComments("1"), with: .failure(Self.notFound))
        viewModel.close()
        #expect(viewModel.state == PhotoState())
    }

    @Test func closeWithNothingOpenChangesNothing() {
        viewModel.close()
        #expect(viewModel.state == PhotoState())
        #expect(changes.isEmpty)
    }

    // MARK: Failures

    @Test(arguments: failures)
    func aDetailFailureFailsOnlyTheDetail(error: UpstreamError) async {
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(error))
        let failed = PhotoState(
            photoId: "1", detail: .failed(error, previous: nil), comments: .loading("1", previous: nil),
            lastError: error
        )
        #expect(viewModel.state == failed)
        await service.answer(.photoComments("1"), with: .success(.commentList(photoComments("1"))))
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
    }

    @Test(arguments: failures)
    func aCommentsFailureFailsOnlyTheComments(error: UpstreamError) async {
        viewModel.open(photoID: "1")
        await service.answer(.photoComments("1"), with: .failure(error))
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loading("1", previous: nil), comments: .failed(error, previous: nil),
                    lastError: error
                )
        )
        await service.answer(.photoInfo("1"), with: .success(.detail(photoDetail("1"))))
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .loaded(photoDetail("1")), comments: .failed(error, previous: nil),
                    lastError: error
                )
        )
        #expect(viewModel.stateJSON["comments"]?["error"] == error.json)
    }

    @Test func lastErrorHoldsTheMostRecentFailure() async {
        let network = UpstreamError(kind: .network, message: "timed out")
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(Self.notFound))
        await service.answer(.photoComments("1"), with: .failure(network))
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .failed(Self.notFound, previous: nil),
                    comments: .failed(network, previous: nil),
                    lastError: network
                )
        )
    }

    @Test func lastErrorStaysWhileLoadingAndABothLoadedOpenClearsIt() async {
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(Self.notFound))
        await service.answer(.photoComments("1"), with: .success(.commentList([])))

        viewModel.open(photoID: "2")
        #expect(viewModel.state == loading("2", lastError: Self.notFound))
        await service.answer(.photoInfo("2"), with: .success(.detail(photoDetail("2"))))
        #expect(viewModel.state.lastError == Self.notFound, "kept until both loads succeeded")
        await service.answer(.photoComments("2"), with: .success(.commentList(photoComments("2"))))
        #expect(viewModel.state == loaded("2"))
    }

    @Test func aReloadFailureKeepsWhatWasShown() async {
        await openAndLoad("1")
        let error = UpstreamError(kind: .upstream, message: "Flickr answered HTTP 503", status: 503)
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(error))
        await service.answer(.photoComments("1"), with: .success(.commentList(photoComments("1"))))
        #expect(
            viewModel.state
                == PhotoState(
                    photoId: "1", detail: .failed(error, previous: photoDetail("1")),
                    comments: .loaded(photoComments("1")),
                    lastError: error
                )
        )
    }

    // MARK: Waiting

    @Test func waitUntilIdleReturnsWhenBothLoadsEnded() async {
        viewModel.open(photoID: "1")
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state
        }
        await service.answer(.photoInfo("1"), with: .success(.detail(photoDetail("1"))))
        await service.answer(.photoComments("1"), with: .failure(Self.notFound))
        #expect(
            await waiter.value
                == PhotoState(
                    photoId: "1", detail: .loaded(photoDetail("1")), comments: .failed(Self.notFound, previous: nil),
                    lastError: Self.notFound
                )
        )
    }

    @Test func waitUntilIdleReturnsOnCloseAndAtOnceWhenIdle() async {
        await viewModel.waitUntilIdle()
        viewModel.open(photoID: "1")
        let waiter = Task { @LoopActor in await viewModel.waitUntilIdle() }
        await settle()
        viewModel.close()
        await waiter.value
        #expect(viewModel.state == PhotoState())
    }

    @Test func shutdownCancelsTheLoadsAndKeepsTheState() async {
        viewModel.open(photoID: "1")
        await settle()
        viewModel.shutdown()
        #expect(!viewModel.isBusy)
        #expect(viewModel.state == loading("1"))
        await settle()
        #expect(Set(service.cancelled) == [.photoInfo("1"), .photoComments("1")])
    }

    // MARK: Snapshot

    /// A view model's snapshot as the journal reads it back from Redis: its text, parsed.
    func snapshot(of viewModel: some HostedViewModel) throws -> JSONValue {
        try JSONParser.parse(viewModel.snapshotText)
    }

    @Test func aLoadedPhotoRestoresEqual() async throws {
        var detail = photoDetail("1")
        detail.takenAt = nil
        detail.views = nil
        detail.tags = []
        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .success(.detail(detail)))
        await service.answer(.photoComments("1"), with: .success(.commentList(photoComments("1"))))

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        try restored.restore(snapshot(of: viewModel))
        #expect(restored.state == viewModel.state)
        #expect(restored.stateJSON == viewModel.stateJSON)
        #expect(!restored.isBusy)
        await settle()
        #expect(other.calls.isEmpty)
    }

    @Test func theInitialStateAndFailuresRestoreEqual() async throws {
        let initial = PhotoViewModel(service: FakeFlickrService())
        try initial.restore(snapshot(of: viewModel))
        #expect(initial.state == PhotoState())

        viewModel.open(photoID: "1")
        await service.answer(.photoInfo("1"), with: .failure(Self.notFound))
        await service.answer(.photoComments("1"), with: .success(.commentList([])))
        let restored = PhotoViewModel(service: FakeFlickrService())
        try restored.restore(snapshot(of: viewModel))
        #expect(
            restored.state
                == PhotoState(
                    photoId: "1", detail: .failed(Self.notFound, previous: nil), comments: .loaded([]),
                    lastError: Self.notFound
                )
        )
    }

    @Test func loadsInFlightRunAgainWhereTheyAreRestored() async throws {
        await openAndLoad("1")
        let error = UpstreamError(kind: .network, message: "timed out")
        viewModel.open(photoID: "1")
        await service.answer(.photoComments("1"), with: .failure(error))
        let snapshot = try snapshot(of: viewModel)

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        let recorded = PhotoStateRecorder()
        restored.onChange = { recorded.states.append($0) }
        try restored.restore(snapshot)
        let interrupted = PhotoState(
            photoId: "1", detail: .loading("1", previous: photoDetail("1")),
            comments: .failed(error, previous: photoComments("1")),
            lastError: error
        )
        #expect(restored.state == interrupted, "the same state, the detail still loading")
        #expect(restored.isBusy)
        await settle()
        #expect(other.pendingCalls == [.photoInfo("1")], "only the interrupted load runs again")

        var newer = photoDetail("1")
        newer.title = "Renamed"
        await other.answer(.photoInfo("1"), with: .success(.detail(newer)))
        #expect(
            restored.state
                == PhotoState(
                    photoId: "1", detail: .loaded(newer), comments: .failed(error, previous: photoComments("1")),
                    lastError: error
                )
        )
        #expect(!restored.isBusy)
        #expect(recorded.states == [interrupted, restored.state])
    }

    @Test func bothLoadsInFlightRunAgainAndARestoreCancelsWhatRan() async throws {
        viewModel.open(photoID: "2")
        let snapshot = try snapshot(of: viewModel)

        let other = FakeFlickrService()
        let restored = PhotoViewModel(service: other)
        restored.open(photoID: "old")
        await settle()
        try restored.restore(snapshot)
        #expect(restored.state == loading("2"))
        await settle()
        #expect(Set(other.cancelled) == [.photoInfo("old"), .photoComments("old")])
        #expect(Set(other.pendingCalls) == [.photoInfo("2"), .photoComments("2")])
        await other.answer(.photoInfo("2"), with: .success(.detail(photoDetail("2"))))
        await other.answer(.photoComments("2"), with: .success(.commentList(photoComments("2"))))
        #expect(restored.state == loaded("2"))
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
        viewModel.open(photoID: "kept")
        #expect(throws: SnapshotError.self) { try viewModel.restore(JSONParser.parse(text)) }
        #expect(viewModel.state == loading("kept"))
        #expect(viewModel.isBusy, "the loads go on")
        await settle()
        #expect(service.cancelled.isEmpty)
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

    @Test func theCommandsAreOpenAndClose() throws {
        #expect(PhotoViewModel.name == "photo")
        #expect(PhotoViewModel.commands.map(\.name) == ["open", "close"])
        let open = try #require(PhotoViewModel.commands.first { $0.name == "open" })
        guard case .accepted = try open.decode(["photoId": "1"])(viewModel) else {
            Issue.record("open answers 202")
            return
        }
        #expect(viewModel.state == loading("1"))
        let close = try #require(PhotoViewModel.commands.first { $0.name == "close" })
        guard case .state = try close.decode([:])(viewModel) else {
            Issue.record("close answers the state")
            return
        }
        #expect(viewModel.state == PhotoState())
    }
}

@LoopActor
final class PhotoStateRecorder {
    var states: [PhotoState] = []
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
