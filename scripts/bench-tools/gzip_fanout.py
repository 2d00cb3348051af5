#!/usr/bin/env python3
"""Fan-out CPU per delivery with gzip-encoded streams against plain ones (the path browsers use).

One session, STREAMS event streams of its search view model (`Accept-Encoding: gzip` or not), then ROUNDS
commands (`search/text`), each sent once every stream has received the previous patch, so no stream falls
behind. The server's CPU time (utime + stime from /proc) over the command rounds is divided by the
deliveries (STREAMS x ROUNDS). Chunked framing is undone and gzip inflated here, and every patch event is
counted on every stream.

Usage: gzip_fanout.py PORT PID STREAMS ROUNDS gzip|plain
Prints `key: value` lines. Only 127.0.0.1 is contacted. No third-party modules.
"""
import asyncio
import json
import sys
import time
import zlib

from loopback import cpu_seconds, request

class Stream:
    """One event stream: de-chunks, inflates when gzip, and counts `event: patch` lines."""

    def __init__(self, compressed):
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if compressed else None
        self.pending = b""
        self.tail = b""
        self.patches = 0
        self.snapshot = False
        self.changed = asyncio.Event()

    def feed_chunk(self, data):
        text = self.inflater.decompress(data) if self.inflater else data
        window = self.tail + text
        self.patches += window.count(b"event: patch\n") - self.tail.count(b"event: patch\n")
        if b"event: snapshot\n" in window:
            self.snapshot = True
        self.tail = window[-32:]
        self.changed.set()


async def read_stream(port, session, compressed, stream, ready):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET /v1/sessions/{session}/search/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if compressed:
        head += "Accept-Encoding: gzip\r\n"
    writer.write((head + "\r\n").encode())
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream answered {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    ready.set()
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return
        data = await reader.readexactly(size + 2)
        stream.feed_chunk(data[:-2])


async def main():
    port, pid, count, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    compressed = sys.argv[5] == "gzip"
    _, body = await request(port, "POST", "/v1/sessions")
    session = json.loads(body)["id"]
    streams = [Stream(compressed) for _ in range(count)]
    readies = [asyncio.Event() for _ in range(count)]
    tasks = []
    for index in range(count):
        tasks.append(asyncio.create_task(read_stream(port, session, compressed, streams[index], readies[index])))
        if index % 200 == 199:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
    deadline = time.monotonic() + 120
    while not all(s.snapshot for s in streams):
        if time.monotonic() > deadline:
            raise RuntimeError("not every stream got its snapshot")
        await asyncio.sleep(0.05)
    cpu_before = cpu_seconds(pid)
    started = time.monotonic()
    for number in range(1, rounds + 1):
        await request(port, "POST", f"/v1/sessions/{session}/search/text", {"text": f"round{number}"})
        while any(s.patches < number for s in streams):
            if time.monotonic() > deadline + 600:
                raise RuntimeError(f"round {number}: not every stream got its patch")
            await asyncio.sleep(0.005)
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(pid) - cpu_before
    deliveries = count * rounds
    print(f"encoding: {'gzip' if compressed else 'plain'}")
    print(f"streams: {count}")
    print(f"deliveries: {deliveries}")
    print(f"seconds: {elapsed:.2f}")
    print(f"server_cpu_s: {cpu:.2f}")
    print(f"cpu_per_delivery_us: {cpu / deliveries * 1e6:.2f}")
    for task in tasks:
        task.cancel()


asyncio.run(main())
