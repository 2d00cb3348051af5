import EventLoop

/// One command on its way: its encoding, its deadline and the code to run once with its outcome.
///
/// While hiredis holds the command (from `redisAsyncFormattedCommand` to its callback) it owns one retain of
/// it, taken with `Unmanaged.passRetained` and given back by `takeRetainedValue` in the callback.
@LoopActor
final class PendingCommand {
    /// The command, sealed.
    let command: RedisCommand
    let deadline: ContinuousClock.Instant
    /// When the command was handed to hiredis.
    private(set) var sentAt: ContinuousClock.Instant?
    /// The connection holding the command; kept alive until hiredis calls the command back.
    var connection: RedisConnection?
    /// Runs once with the outcome and, when the command was sent, the time since it was.
    typealias Completion = @LoopActor (Result<RedisReply, RedisError>, Duration?) -> Void
    private var completion: Completion?
    /// The clock of ``sentAt`` and of the latency.
    private let clock: LoopClock

    init(
        _ command: RedisCommand, deadline: ContinuousClock.Instant, clock: LoopClock, completion: @escaping Completion
    ) {
        var command = command
        if !command.isSealed { command.seal() }
        self.command = command
        self.deadline = deadline
        self.clock = clock
        self.completion = completion
    }

    /// Whether the outcome has been delivered.
    var isFinished: Bool { completion == nil }

    func markSent() {
        sentAt = clock.now
    }

    /// Delivers the outcome; every call after the first is ignored.
    func finish(_ result: Result<RedisReply, RedisError>) {
        guard let completion else { return }
        self.completion = nil
        // NB: not `sentAt.map { … }`: a closure here would check its executor on every reply.
        var latency: Duration?
        if let sentAt { latency = clock.now - sentAt }
        completion(result, latency)
    }
}

/// A first-in, first-out queue of commands (replies come back in the order commands were sent).
struct CommandQueue {
    private var items: [PendingCommand] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    var count: Int { items.count - head }

    /// The oldest command whose outcome is still open.
    @LoopActor
    var firstUnfinished: PendingCommand? {
        // NB: a loop, not `first(where:)`: a closure here would check its executor on every call.
        for index in head..<items.count where !items[index].isFinished { return items[index] }
        return nil
    }

    mutating func append(_ command: PendingCommand) {
        items.append(command)
    }

    /// Removes `command`; normally it is the oldest, so this is O(1).
    mutating func remove(_ command: PendingCommand) {
        if head < items.count, items[head] === command {
            head += 1
        } else if let index = items[head...].firstIndex(where: { $0 === command }) {
            items.remove(at: index)
        }
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    /// Empties the queue, returning its commands oldest first.
    mutating func removeAll() -> [PendingCommand] {
        let all = Array(items[head...])
        items.removeAll()
        head = 0
        return all
    }
}
