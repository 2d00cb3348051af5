#!/usr/bin/env python3
"""Opens COUNT event streams on a few sessions and drops each connection abruptly mid-stream (RST), while
commands change the state; half the streams are gzip-encoded. Usage: disconnect_storm.py PORT COUNT. Standard library only, 127.0.0.1 only."""
import asyncio
import json
import socket
import struct
import sys

import loopback

PORT = int(sys.argv[1])
COUNT = int(sys.argv[2])


async def request(method, path, body=None, headers=None):
    return await loopback.request(PORT, method, path, body, headers)


async def stream_and_drop(session, index):
    path = ["events", "search/events", "products/events"][index % 3]
    encoding = "Accept-Encoding: gzip\r\n" if index % 2 else ""  # half the streams gzip-encoded
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    writer.write(f"GET /v1/sessions/{session}/{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{encoding}\r\n".encode())
    await writer.drain()
    await reader.read(1024)  # the head and the first event arrived: the stream is open
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close → RST
    writer.transport.abort()


async def main():
    sessions = []
    for _ in range(20):
        status, body = await request("POST", "/v1/sessions")
        assert status == 201, status
        sessions.append(json.loads(body)["id"])
    semaphore = asyncio.Semaphore(100)

    async def one(index):
        async with semaphore:
            session = sessions[index % len(sessions)]
            await stream_and_drop(session, index)
            if index % 10 == 0:
                await request("POST", f"/v1/sessions/{session}/search/text", {"text": f"storm {index}", "autoSearch": True})
            if index % 25 == 0:
                await request("POST", f"/v1/sessions/{session}/products/refresh")

    await asyncio.gather(*(one(i) for i in range(COUNT)))
    await asyncio.sleep(0.5)
    status, body = await request("GET", "/metrics")
    streams = [l for l in body.decode().splitlines() if l.startswith("vmhost_open_streams ")]
    print("after storm:", streams[0] if streams else "no metric")
    assert streams and streams[0].split()[1] in ("0", "0.0"), "streams still counted open after disconnects"


asyncio.run(main())
