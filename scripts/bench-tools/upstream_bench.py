#!/usr/bin/env python3
"""vmhost-only benchmark scenarios (the C reference server has no upstream):

  concurrency  1,000 sessions search at once (distinct texts) against the fake upstream with 500 ms
               latency: wall time until every search is loaded, and server CPU per upstream request.
  patch-size   bytes of the SSE patches sent for one search load-more onto 25 pages already loaded,
               against the size of that page's JSON as the upstream sent it: on a plain stream (the
               `data:` payloads) and on the wire of a stream opened with `Accept-Encoding: gzip`
               (the chunk payloads), the latter also against the page JSON gzipped.

Usage: upstream_bench.py VMHOST_PORT FAKE_BASE_URL VMHOST_PID
Prints `key: value` lines. Standard library only; talks to 127.0.0.1 only.
"""
import asyncio
import gzip
import json
import sys
import time
import urllib.request
import zlib

from loopback import cpu_seconds, request


def control(fake, settings):
    req = urllib.request.Request(fake + "/_control", data=json.dumps(settings).encode(), method="PUT",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()


async def create_sessions(port, count):
    semaphore = asyncio.Semaphore(64)

    async def one():
        async with semaphore:
            status, body = await request(port, "POST", "/v1/sessions")
            assert status == 201, status
            return json.loads(body)["id"]

    return await asyncio.gather(*(one() for _ in range(count)))


async def concurrency(port, fake, pid, count=1000):
    control(fake, {"latencyMs": 500})
    ids = await create_sessions(port, count)
    cpu_before = cpu_seconds(pid)
    started = time.monotonic()

    async def search(index, session):
        status, body = await request(port, "POST", f"/v1/sessions/{session}/search/execute",
                                     {"text": f"bench upstream {index}"}, {"Prefer": "wait=30"})
        state = json.loads(body)
        return status == 200 and state["results"]["status"] == "loaded"

    results = await asyncio.gather(*(search(i, s) for i, s in enumerate(ids)))
    wall = time.monotonic() - started
    cpu = cpu_seconds(pid) - cpu_before
    control(fake, {})
    print(f"upstream_searches: {count}")
    print(f"upstream_loaded: {sum(results)}")
    print(f"upstream_wall_s: {wall:.3f}")
    print(f"upstream_cpu_per_request_us: {cpu / count * 1e6:.1f}")
    for session in ids:
        await request(port, "DELETE", f"/v1/sessions/{session}")


async def patch_size(port, fake):
    per_page = 30
    text = None
    for candidate in (f"landscape {i}" for i in range(200)):
        with urllib.request.urlopen(f"{fake}/services/rest/?method=flickr.photos.search&text="
                                    f"{urllib.request.quote(candidate)}&page=1&per_page={per_page}"
                                    "&format=json&nojsoncallback=1") as answer:
            pages = int(json.loads(answer.read())["photos"]["pages"])
        if pages >= 30:
            text = candidate
            break
    assert text, "no search text with 30 pages in the fake upstream"
    (session,) = await create_sessions(port, 1)
    wait = {"Prefer": "wait=30"}
    status, _ = await request(port, "POST", f"/v1/sessions/{session}/search/execute", {"text": text}, wait)
    assert status == 200
    for _ in range(24):
        status, _ = await request(port, "POST", f"/v1/sessions/{session}/search/load-more", None, wait)
        assert status == 200, status
    # 25 pages loaded; watch a plain and a gzip stream while page 26 is appended.
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /v1/sessions/{session}/search/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    buffer = b""
    while b"\n\n" not in buffer.partition(b"event: snapshot")[2]:
        buffer += await reader.read(65536)
    zreader, zwriter = await asyncio.open_connection("127.0.0.1", port)
    zwriter.write(f"GET /v1/sessions/{session}/search/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  "Accept-Encoding: gzip\r\n\r\n".encode())
    await zwriter.drain()
    head = await zreader.readuntil(b"\r\n\r\n")
    assert b"content-encoding: gzip" in head.lower(), head
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)

    async def next_chunk():
        size = int((await zreader.readuntil(b"\r\n")).split(b";")[0], 16)
        data = await zreader.readexactly(size + 2)
        return data[:-2]

    decoded = b""
    while b"\n\n" not in decoded.partition(b"event: snapshot")[2]:
        decoded += inflater.decompress(await next_chunk())
    status, body = await request(port, "POST", f"/v1/sessions/{session}/search/load-more", None, wait)
    state = json.loads(body)
    assert state["results"]["value"]["page"] == 26, state["results"]["value"]["page"]
    patch_bytes = 0
    events = 0
    stream = b""
    deadline = time.monotonic() + 10
    while events < 2 and time.monotonic() < deadline:
        stream += await asyncio.wait_for(reader.read(65536), 10)
        events = stream.count(b"event: patch")
    writer.close()
    for line in stream.split(b"\n"):
        if line.startswith(b"data: "):
            patch_bytes += len(line) - len(b"data: ")
    wire_bytes = 0
    decoded = b""
    while decoded.count(b"event: patch") < 2:
        chunk = await asyncio.wait_for(next_chunk(), 10)
        wire_bytes += len(chunk)
        decoded += inflater.decompress(chunk)
    zwriter.close()
    with urllib.request.urlopen(f"{fake}/services/rest/?method=flickr.photos.search&text="
                                f"{urllib.request.quote(text)}&sort=interestingness-desc&page=26&per_page={per_page}"
                                "&format=json&nojsoncallback=1") as answer:
        page = answer.read()
    page_bytes = len(page)
    page_gzip_bytes = len(gzip.compress(page))
    print(f"patch_events: {events}")
    print(f"patch_bytes: {patch_bytes}")
    print(f"page_json_bytes: {page_bytes}")
    print(f"patch_to_page_ratio: {patch_bytes / page_bytes:.3f}")
    print(f"gzip_patch_wire_bytes: {wire_bytes}")
    print(f"gzip_patch_to_page_ratio: {wire_bytes / page_bytes:.3f}")
    print(f"page_json_gzip_bytes: {page_gzip_bytes}")
    print(f"gzip_patch_to_gzip_page_ratio: {wire_bytes / page_gzip_bytes:.3f}")


async def main():
    port, fake, pid = int(sys.argv[1]), sys.argv[2].rstrip("/"), int(sys.argv[3])
    await patch_size(port, fake)
    await concurrency(port, fake, pid)


asyncio.run(main())
