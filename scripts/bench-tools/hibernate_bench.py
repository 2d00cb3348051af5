#!/usr/bin/env python3
"""Hibernation at scale: N sessions, each with one loaded search page (the embedded fake upstream), created on
one vmhost with hibernation on; once they have all hibernated: vmhost RSS per hibernated session over the
baseline, Redis `used_memory` per session against the session's JSON (`GET /v1/sessions/{id}`), the creation
rate, then the wake-up rate and latency (a `GET` of a hibernated session: first WAKE_SEQUENTIAL one at a time for
the latency, then the rest of WAKES at CONCURRENCY for the rate). Prints `key: value` lines.

Usage: hibernate_bench.py PORT PID REDIS_PORT [SESSIONS] [CONCURRENCY] [WAKES]
Only 127.0.0.1 is contacted. No third-party modules.
"""
import asyncio
import json
import socket
import sys
import time

from loopback import request, rss_kib

WAKE_SEQUENTIAL = 1000


def redis_used_memory(port):
    """`used_memory` of INFO memory, over one RESP exchange."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(b"*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n")
        data = b""
        while b"\r\n" not in data:
            data += connection.recv(65536)
        head, _, rest = data.partition(b"\r\n")
        length = int(head[1:])
        while len(rest) < length:
            rest += connection.recv(65536)
    for line in rest.decode().splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    raise RuntimeError("no used_memory")


async def metric(port, name):
    _, body = await request(port, "GET", "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


async def until_hibernated(port, total, limit=600):
    """Waits until `total` hibernations happened and no session is resident; returns the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if await metric(port, "vmhost_sessions_hibernated_total") >= total and await metric(port, "vmhost_sessions") == 0:
            return time.monotonic() - started
        await asyncio.sleep(0.5)
    raise RuntimeError(f"not all hibernated after {limit} s")


async def settled_rss(pid, seconds=60):
    """RSS once it stops falling (jemalloc gives freed pages back over about ten seconds), at most `seconds`."""
    previous = rss_kib(pid)
    for _ in range(seconds // 5):
        await asyncio.sleep(5)
        current = rss_kib(pid)
        if current >= previous - 256:
            return current
        previous = current
    return rss_kib(pid)


async def create(port, failures):
    status, body = await request(port, "POST", "/v1/sessions")
    if status != 201:
        failures.append(f"create {status}")
        return None
    session = json.loads(body)["id"]
    status, _ = await request(
        port, "POST", f"/v1/sessions/{session}/search/execute", {"text": "kittens"}, {"Prefer": "wait=30"})
    if status != 200:
        failures.append(f"execute {status}")
    return session


async def server_wake_bounds(port):
    """The upper bounds (ms) of the histogram buckets holding the server's own p50 and p99 wake-up takeover
    (`vmhost_session_wake_duration_seconds`) of the one-at-a-time wake-ups: what vmhost spent, without the
    client's scheduling."""
    _, body = await request(port, "GET", "/metrics")
    buckets = []
    for line in body.decode().splitlines():
        if line.startswith("vmhost_session_wake_duration_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float("inf") if bound == "+Inf" else float(bound), float(line.split()[-1])))
    buckets.sort()
    total = buckets[-1][1] if buckets else 0

    def bound(p):
        for upper, count in buckets:
            if total and count >= p * total:
                return upper * 1000
        return float("nan")
    return bound(0.50), bound(0.99)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000


async def main():
    port, pid, redis_port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    sessions = int(sys.argv[4]) if len(sys.argv) > 4 else 100000
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    wakes = min(sessions, int(sys.argv[6]) if len(sys.argv) > 6 else 10000)
    failures = []
    # A warm-up session (caches, metrics, the allocator's first arenas), hibernated before the baseline.
    warm = await create(port, failures)
    await until_hibernated(port, 1)
    rss_before = await settled_rss(pid)
    redis_before = redis_used_memory(redis_port)

    # A pool of `concurrency` workers, not one task per session: a million pending tasks would cost the client
    # gigabytes and make it, not vmhost, the bottleneck.
    ids = []

    async def creator(count):
        for _ in range(count):
            session = await create(port, failures)
            if session:
                ids.append(session)

    started = time.monotonic()
    await asyncio.gather(*(creator(sessions // concurrency + (1 if w < sessions % concurrency else 0))
                           for w in range(concurrency)))
    creation_seconds = time.monotonic() - started
    rss_peak = rss_kib(pid)
    waited = await until_hibernated(port, sessions + 1)
    rss_after = await settled_rss(pid)
    redis_after = redis_used_memory(redis_port)

    # Waking: one at a time for the latency, then concurrently for the rate.
    latencies = []
    for session in ids[:min(WAKE_SEQUENTIAL, wakes)]:
        begun = time.monotonic()
        status, _ = await request(port, "GET", f"/v1/sessions/{session}")
        latencies.append(time.monotonic() - begun)
        if status != 200:
            failures.append(f"wake {status}")

    # NB: read before the concurrent wake-ups, whose takeovers queue behind each other.
    server_p50, server_p99 = await server_wake_bounds(port)

    rest = ids[min(WAKE_SEQUENTIAL, wakes):wakes]
    pending = iter(rest)

    async def waker():
        for session in pending:
            status, _ = await request(port, "GET", f"/v1/sessions/{session}")
            if status != 200:
                failures.append(f"wake {status}")

    begun = time.monotonic()
    await asyncio.gather(*(waker() for _ in range(concurrency)))
    wake_seconds = time.monotonic() - begun
    _, state = await request(port, "GET", f"/v1/sessions/{ids[0] if ids else warm}")
    woken = await metric(port, "vmhost_sessions_woken_total")

    count = len(ids)
    rss_per = (rss_after - rss_before) * 1024 / max(count, 1)
    redis_per = (redis_after - redis_before) / max(count, 1)
    print(f"sessions: {count}")
    print(f"create_per_s: {count / creation_seconds:.0f}")
    print(f"hibernated_after_creation_s: {waited:.1f}")
    print(f"rss_before_kib: {rss_before}")
    print(f"rss_peak_kib: {rss_peak}")
    print(f"rss_after_kib: {rss_after}")
    print(f"rss_per_hibernated_session_bytes: {rss_per:.0f}")
    print(f"redis_used_memory_per_session_bytes: {redis_per:.0f}")
    print(f"state_json_bytes: {len(state)}")
    print(f"redis_per_json_byte: {redis_per / max(len(state), 1):.2f}")
    print(f"wake_p50_ms: {percentile(latencies, 0.50):.2f}")
    print(f"wake_p99_ms: {percentile(latencies, 0.99):.2f}")
    print(f"wake_max_ms: {max(latencies) * 1000:.2f}")
    if rest:
        print(f"wake_per_s: {len(rest) / wake_seconds:.0f} ({len(rest)} at concurrency {concurrency})")
    print(f"woken_metric: {woken:.0f}")
    print(f"server_wake_p50_le_ms: {server_p50:g}")
    print(f"server_wake_p99_le_ms: {server_p99:g}")
    print(f"errors: {len(failures)} {' '.join(sorted(set(failures))[:5])}")


asyncio.run(main())
