import EventLoop
import Testing

@Suite("EventLoop")
struct EventLoopTests {
    /// The loop runs on epoll with libevent's changelist: the changes made to a descriptor's events within a turn
    /// reach the kernel as one `epoll_ctl` call at most (none for a write event enabled and disabled again).
    @Test func theLoopRunsOnEpollWithItsChangelist() {
        #expect(EventLoop.shared.backend == "epoll (with changelist)")
    }
}
