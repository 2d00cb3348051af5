#!/usr/bin/env python3
"""Mixed load against a running vmhost for a given duration; reports RSS over time, errors and metrics.

Usage: soak.py VMHOST_PORT FAKE_BASE_URL VMHOST_PID DURATION_SECONDS [USERS]

Each simulated user loops: create a session, open its multiplexed stream (half of them gzip-encoded; read
and decoded in the background, closed abruptly now and then), type and search, page, load photo metadata,
refresh and page products, cancel, and delete the session. A fault injector turns on a fault of the fake
upstream (500, 429, malformed, business, slow) for a few requests every 20 s. Standard library only; talks to 127.0.0.1 only.
"""
import asyncio
import json
import random
import sys
import time
import urllib.request
import zlib

import loopback

PORT = 0
stats = {"requests": 0, "errors": 0, "unexpected": {}, "sessions": 0, "streams": 0, "gzip_streams": 0, "events": 0}


async def request(method, path, body=None, headers=None, expect=(200, 201, 202, 204, 409)):
    status, body_bytes = await loopback.request(PORT, method, path, body, headers)
    stats["requests"] += 1
    if status not in expect:
        stats["errors"] += 1
        key = f"{method} {path.split('/')[-1]} -> {status}"
        stats["unexpected"][key] = stats["unexpected"].get(key, 0) + 1
    return status, body_bytes


def dechunk(buffer):
    """Splits complete HTTP chunks off `buffer` (after the head): (payloads, rest)."""
    payloads = []
    while True:
        line_end = buffer.find(b"\r\n")
        if line_end < 0:
            return payloads, buffer
        size = int(buffer[:line_end].split(b";")[0] or b"0", 16)
        if len(buffer) < line_end + 2 + size + 2:
            return payloads, buffer
        payloads.append(buffer[line_end + 2:line_end + 2 + size])
        buffer = buffer[line_end + 2 + size + 2:]


async def read_stream(session, lifetime, compressed):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
        encoding = "Accept-Encoding: gzip\r\n" if compressed else ""
        writer.write(f"GET /v1/sessions/{session}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n{encoding}\r\n".encode())
        await writer.drain()
        stats["streams"] += 1
        if compressed:
            stats["gzip_streams"] += 1
        deadline = time.monotonic() + lifetime
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        head_done = not compressed
        buffer = b""
        while time.monotonic() < deadline:
            chunk = await asyncio.wait_for(reader.read(65536), timeout=max(0.1, deadline - time.monotonic()))
            if not chunk:
                return
            if not compressed:
                stats["events"] += chunk.count(b"\nevent: ")
                continue
            buffer += chunk
            if not head_done:
                head, separator, buffer = buffer.partition(b"\r\n\r\n")
                if not separator:
                    buffer = head
                    continue
                head_done = True
                if b"content-encoding: gzip" not in head.lower():
                    stats["errors"] += 1
                    stats["unexpected"]["gzip stream without Content-Encoding"] = 1
                    return
            payloads, buffer = dechunk(buffer)
            for payload in payloads:
                try:
                    stats["events"] += inflater.decompress(payload).count(b"\nevent: ")
                except zlib.error:
                    stats["errors"] += 1
                    stats["unexpected"]["corrupt gzip stream"] = stats["unexpected"].get("corrupt gzip stream", 0) + 1
                    return
    except (asyncio.TimeoutError, ConnectionError, OSError):
        pass
    finally:
        try:
            writer.transport.abort()  # abrupt disconnect, as a phone losing signal
        except Exception:
            pass


async def user(rng, stop_at):
    words = ["kittens", "sunset", "mountain lake", "city lights", "aurora", "forest path", "desert", "harbor"]
    while time.monotonic() < stop_at:
        status, body = await request("POST", "/v1/sessions")
        if status != 201:
            await asyncio.sleep(0.5)
            continue
        session = json.loads(body)["id"]
        stats["sessions"] += 1
        stream = asyncio.create_task(read_stream(session, rng.uniform(1, 8), rng.random() < 0.5))
        base = f"/v1/sessions/{session}"
        for _ in range(rng.randint(3, 12)):
            action = rng.random()
            if action < 0.25:
                text = rng.choice(words)
                for i in range(2, len(text) + 1, 2):
                    await request("POST", base + "/search/text", {"text": text[:i], "autoSearch": True})
            elif action < 0.45:
                status, body = await request("POST", base + "/search/execute", {"text": rng.choice(words)},
                                             {"Prefer": "wait=5"})
                if status == 200:
                    photos = (json.loads(body).get("results", {}).get("value") or {}).get("photos") or []
                    ids = [p["id"] for p in photos[:8]]
                    if ids:
                        await request("POST", base + "/search/visible", {"photoIds": ids}, {"Prefer": "wait=5"})
            elif action < 0.55:
                await request("POST", base + "/search/load-more", None, {"Prefer": "wait=5"})
            elif action < 0.7:
                await request("POST", base + "/products/refresh", None, {"Prefer": "wait=5"})
            elif action < 0.8:
                await request("POST", base + "/products/load-more", None, {"Prefer": "wait=5"})
            elif action < 0.9:
                await request("POST", base + "/search/execute", {"text": rng.choice(words) + " x"})
                await request("POST", base + "/search/cancel")
            else:
                await request("GET", base)
        await stream
        await request("DELETE", base, expect=(204,))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


async def fault_injector(fake, rng, stop_at):
    faults = ["http500", "http429", "malformed", "business", "slow"]
    while time.monotonic() < stop_at:
        await asyncio.sleep(20)
        settings = {"fault": rng.choice(faults), "faultCount": 5, "slowDelayMs": 2000, "latencyMs": 20}
        req = urllib.request.Request(fake + "/_control", data=json.dumps(settings).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
        await asyncio.get_running_loop().run_in_executor(None, lambda: urllib.request.urlopen(req).read())


async def main():
    global PORT
    PORT = int(sys.argv[1])
    fake, pid, duration = sys.argv[2].rstrip("/"), int(sys.argv[3]), float(sys.argv[4])
    users = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    rng = random.Random(42)
    started = time.monotonic()
    stop_at = started + duration
    tasks = [asyncio.create_task(user(random.Random(i), stop_at)) for i in range(users)]
    injector = asyncio.create_task(fault_injector(fake, rng, stop_at))
    samples = []
    while time.monotonic() < stop_at:
        await asyncio.sleep(min(15, max(0.1, stop_at - time.monotonic())))
        elapsed = time.monotonic() - started
        samples.append((elapsed, rss_kb(pid)))
        print(f"t={elapsed:6.0f}s rss_kb={samples[-1][1]} requests={stats['requests']} errors={stats['errors']} "
              f"sessions={stats['sessions']} streams={stats['streams']} events={stats['events']}", flush=True)
    await asyncio.gather(*tasks, return_exceptions=True)
    injector.cancel()
    warm = [rss for t, rss in samples if t >= min(60, duration / 3)]
    if len(warm) >= 2:
        first, last, peak = warm[0], warm[-1], max(warm)
        print(f"rss_after_warmup_kb: {first}")
        print(f"rss_end_kb: {last}")
        print(f"rss_peak_kb: {peak}")
        print(f"rss_growth_after_warmup_pct: {(last - first) / first * 100:.1f}")
    print(f"requests: {stats['requests']}")
    print(f"errors: {stats['errors']}")
    for key, count in sorted(stats["unexpected"].items()):
        print(f"  unexpected {key}: {count}")
    print(f"sessions: {stats['sessions']} streams: {stats['streams']} (gzip: {stats['gzip_streams']}) events: {stats['events']}")
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/metrics") as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith(("vmhost_sessions", "vmhost_open_streams", "vmhost_open_connections",
                                "vmhost_upstream_requests_total", "vmhost_upstream_cache_total")):
                print("metrics " + line)


asyncio.run(main())
