"""What the vmhost bench tools share: one HTTP/1.1 request on its own loopback connection, and a process's
CPU time. Standard library only; talks to 127.0.0.1 only."""
import asyncio
import json
import os


async def request(port, method, path, body=None, headers=None):
    """Sends one request (`body` as JSON, `headers` a dict) and returns (status, body bytes, de-chunked); the
    status is 0 when no readable response came back (the connection was reset or closed early)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    writer.write(head.encode() + b"\r\n" + payload)
    await writer.drain()
    data = await reader.read()
    writer.close()
    header, _, rest = data.partition(b"\r\n\r\n")
    try:
        status = int(header.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0, b""
    if b"transfer-encoding: chunked" in header.lower():
        body_bytes, rest_bytes = b"", rest
        while rest_bytes:
            size_line, _, rest_bytes = rest_bytes.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            body_bytes += rest_bytes[:size]
            rest_bytes = rest_bytes[size + 2:]
        rest = body_bytes
    return status, rest


def rss_kib(pid):
    """VmRSS of process `pid`, KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid):
    """User plus system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks
