#!/usr/bin/env python3
"""Takeover time after SIGKILL: N sessions with one multiplexed stream each on node A; A is killed; every
client reconnects at once to node B with its Last-Event-ID. Prints, per client, the time from the kill to
its resumed stream answering on B (status line and `retry:` received, or a first event), as p50/p99/max.

Usage: takeover_bench.py A_PORT A_PID B_PORT [SESSIONS]
Only 127.0.0.1 is contacted. No third-party modules.
"""
import asyncio
import json
import os
import signal
import sys
import time

from loopback import request


async def open_stream(port, session, last_event_id=None):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET /v1/sessions/{session}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if last_event_id:
        head += f"Last-Event-ID: {last_event_id}\r\n"
    writer.write((head + "\r\n").encode())
    await writer.drain()
    status_line = await reader.readline()
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return reader, writer, int(status_line.split(b" ")[1]) if status_line else 0


async def read_events(reader, on_event):
    """Reads a chunked SSE body, calling on_event(id) for each event, until the connection ends."""
    buffer = b""
    try:
        while True:
            size_line = await reader.readline()
            if not size_line:
                return
            size = int(size_line.strip() or b"0", 16)
            if size == 0:
                return
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                event_id = None
                for line in block.split(b"\n"):
                    if line.startswith(b"id: "):
                        event_id = line[4:].decode()
                on_event(event_id)
    except (asyncio.IncompleteReadError, ConnectionError):
        return


async def main():
    a_port, a_pid, b_port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    sessions = []
    for _ in range(count):
        status, body = await request(a_port, "POST", "/v1/sessions")
        sessions.append(json.loads(body)["id"])
    for chunk in range(0, count, 100):
        await asyncio.gather(*[
            request(a_port, "POST", f"/v1/sessions/{s}/search/text", {"text": "kittens"})
            for s in sessions[chunk:chunk + 100]
        ])
    last_ids = {}
    first_seen = {s: asyncio.get_running_loop().create_future() for s in sessions}
    tasks = []
    for session in sessions:
        reader, writer, status = await open_stream(a_port, session)
        assert status == 200, status

        def seen(event_id, session=session):
            if event_id:
                last_ids[session] = event_id
            if not first_seen[session].done():
                first_seen[session].set_result(True)
        tasks.append(asyncio.create_task(read_events(reader, seen)))
    await asyncio.wait_for(asyncio.gather(*first_seen.values()), 60)

    killed_at = time.monotonic()
    os.kill(a_pid, signal.SIGKILL)
    await asyncio.gather(*tasks)

    async def resume(session):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                reader, writer, status = await open_stream(b_port, session, last_ids.get(session))
            except ConnectionError:
                await asyncio.sleep(0.05)
                continue
            if status == 200:
                await reader.readline()  # the chunk size of the first chunk: `retry:` and any missed events
                elapsed = time.monotonic() - killed_at
                writer.close()
                return elapsed
            writer.close()
            await asyncio.sleep(0.05)
        return None

    results = await asyncio.gather(*[resume(s) for s in sessions])
    resumed = sorted(r for r in results if r is not None)
    if not resumed:
        print("takeover_resumed: 0")
        return
    def pct(p):
        return resumed[min(len(resumed) - 1, int(p * len(resumed)))] * 1000
    print(f"takeover_resumed: {len(resumed)}/{count}")
    print(f"takeover_p50_ms: {pct(0.50):.1f}")
    print(f"takeover_p99_ms: {pct(0.99):.1f}")
    print(f"takeover_max_ms: {resumed[-1] * 1000:.1f}")


if __name__ == "__main__":
    asyncio.run(main())
