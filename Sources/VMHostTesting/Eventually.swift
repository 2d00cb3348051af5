/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it held.
///
/// For outcomes that arrive after real latency (an upstream, a debounce, another process): a fixed sleep fails on
/// a slow CI runner, a generous deadline costs nothing on a fast one (a wait only takes long when it fails). It
/// runs where its caller runs (`isolation`), so the condition may read the caller's actor-isolated state; a
/// cancelled task stops waiting.
public func eventually(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(50),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline || Task.isCancelled { return false }
        try? await Task.sleep(for: interval)
    }
}
