#!/usr/bin/env python3
"""Memory per session: RSS growth of a vmhost process over N sessions (the first is a warm-up, so
one-time allocations are not counted; the growth is divided by the other N - 1), each with 3 search pages (90 photos)
and 2 product pages loaded (issue 12's shape), against the JSON bytes of one session's state
(`GET /v1/sessions/{id}`). No streams are open. Prints `key: value` lines.

Usage: memory_bench.py PORT PID [SESSIONS] [CONCURRENCY]
Only 127.0.0.1 is contacted. No third-party modules.
"""
import asyncio
import json
import sys
import time

from loopback import request, rss_kib


async def fill(port, failures):
    wait = {"Prefer": "wait=30"}
    status, body = await request(port, "POST", "/v1/sessions")
    if status != 201:
        failures.append(f"create {status}")
        return None
    session = json.loads(body)["id"]
    base = f"/v1/sessions/{session}"
    steps = [
        ("search/execute", {"text": "kittens"}),
        ("search/load-more", None),
        ("search/load-more", None),
        ("products/refresh", None),
        ("products/load-more", None),
    ]
    for command, body in steps:
        status, _ = await request(port, "POST", f"{base}/{command}", body, wait)
        if status != 200:
            failures.append(f"{command} {status}")
    return session


async def main():
    port, pid = int(sys.argv[1]), int(sys.argv[2])
    sessions = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    concurrency = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    failures = []
    # The first session warms up (caches, metrics): it is not counted per session, and the total stays N.
    warm = await fill(port, failures)
    sessions -= 1
    before = rss_kib(pid)
    started = time.monotonic()
    semaphore = asyncio.Semaphore(concurrency)

    async def one():
        async with semaphore:
            return await fill(port, failures)

    ids = await asyncio.gather(*(one() for _ in range(sessions)))
    after = rss_kib(pid)
    sample = next((i for i in ids if i), warm)
    _, state = await request(port, "GET", f"/v1/sessions/{sample}")
    per_session = (after - before) * 1024 / sessions
    print(f"sessions: {sessions + 1}")
    print(f"seconds: {time.monotonic() - started:.1f}")
    print(f"rss_before_kib: {before}")
    print(f"rss_after_kib: {after}")
    print(f"rss_per_session_bytes: {per_session:.0f}")
    print(f"state_json_bytes: {len(state)}")
    print(f"rss_per_json_byte: {per_session / len(state):.2f}")
    print(f"errors: {len(failures)} {' '.join(sorted(set(failures))[:5])}")


asyncio.run(main())
